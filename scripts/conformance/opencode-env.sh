# Sourced by run-opencode*.sh once CENV is set, in $PROJ: OpenCode's version, and oc / sid_of to
# run a turn and read its session id.
VERSION="$("${CENV[@]}" "$OPENCODE" --version 2>/dev/null)"
oc() { # oc NAME args...   (stdout: --format json event stream)
  local name="$1"; shift
  "${CENV[@]}" timeout 120 "$OPENCODE" run --format json "$@" < /dev/null > "$RUN/$name.jsonl" 2> "$RUN/$name.err" \
    || echo "WARNING: $name exited $?" >&2
}
sid_of() { node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    try { const o = JSON.parse(l); const s = o.sessionID || (o.part && o.part.sessionID); if (s) { console.log(s); break; } } catch {}
  }' "$1"; }
