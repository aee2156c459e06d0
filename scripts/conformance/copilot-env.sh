# Sourced by run-copilot*.sh after start_mock: Copilot's environment pointed at the mock through its
# BYOK settings (CENV), its version, and cop / sid_of to run a turn and read its session id. Leaves
# the shell in $PROJ.
set_base_env
CENV=("${BASE_ENV[@]}" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false
  COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1" COPILOT_PROVIDER_TYPE=openai
  COPILOT_PROVIDER_API_KEY=dummy-key COPILOT_MODEL=mock-model)
cd "$PROJ"
VERSION="$("${CENV[@]}" "$COPILOT" --version 2>/dev/null | head -1)"
cop() { # cop NAME args...   (stdout: --output-format json, JSONL events)
  local name="$1"; shift
  "${CENV[@]}" timeout 120 "$COPILOT" --allow-all-tools --output-format json --disable-client-telemetry --no-auto-update "$@" \
    < /dev/null > "$RUN/$name.jsonl" 2> "$RUN/$name.err" || echo "WARNING: $name exited $?" >&2
}
sid_of() { node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    try { const o = JSON.parse(l); const s = o.sessionId || (o.data && o.data.sessionId); if (s) { console.log(s); process.exit(0); } } catch {}
  }
  const d = process.argv[2]; const fs = require("fs"); // fall back to the newest session-state dir
  const ds = fs.readdirSync(d).filter((x) => !x.startsWith(".")).map((x) => [x, fs.statSync(d + "/" + x).mtimeMs]).sort((a, b) => b[1] - a[1]);
  console.log(ds.length ? ds[0][0] : "");' "$1" "$HOME_DIR/.copilot/session-state"; }
