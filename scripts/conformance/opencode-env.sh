# Sourced by the drivers of OpenCode and of its fork Kilo (run-opencode*.sh, run-kilo.sh),
# with OC (the CLI), OC_NAME (opencode | kilo: the config folder and file) and OC_SCHEMA set.
#   oc_setup VAR_PREFIX          the CLI's config (provider "mock", the bundled
#                                @ai-sdk/openai-compatible, pointed at the mock; tools allowed) and
#                                CENV: the base environment plus the CLI's switches for a quiet,
#                                offline run (both CLIs take the same ones under their own prefix)
#   oc NAME args...              one `run --format json` turn into $RUN/NAME.jsonl
#   sid_of FILE                  the session id of such a turn
write_config() {
  mkdir -p "$HOME_DIR/.config/$OC_NAME"
  cat > "$HOME_DIR/.config/$OC_NAME/$OC_NAME.json" <<EOF
{
  "\$schema": "$OC_SCHEMA",
  "model": "mock/mock-model",
  "small_model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled",
  "permission": { "bash": "allow", "edit": "allow", "read": "allow", "external_directory": "allow" },
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "http://127.0.0.1:$MOCK_PORT/v1", "apiKey": "dummy-key" },
      "models": { "mock-model": { "name": "Mock Model", "tool_call": true, "limit": { "context": 128000, "output": 8192 } } }
    }
  }
}
EOF
}
oc_setup() {
  local p="$1"
  write_config
  set_base_env
  CENV=("${BASE_ENV[@]}" "${p}_DISABLE_MODELS_FETCH=1" "${p}_DISABLE_AUTOUPDATE=1"
    "${p}_DISABLE_DEFAULT_PLUGINS=1" "${p}_DISABLE_LSP_DOWNLOAD=1" "${p}_DISABLE_SHARE=1" "${p}_PURE=1")
}
# Kilo prints INFO lines before its version
oc_version() { "${CENV[@]}" "$OC" --version 2>/dev/null | grep -v "^INFO" | tail -1; }
oc() {
  local name="$1"; shift
  "${CENV[@]}" timeout 120 "$OC" run --format json "$@" < /dev/null > "$RUN/$name.jsonl" 2> "$RUN/$name.err" \
    || echo "WARNING: $name exited $?" >&2
}
sid_of() { node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    try { const o = JSON.parse(l); const s = o.sessionID || (o.part && o.part.sessionID); if (s) { console.log(s); break; } } catch {}
  }' "$1"; }
# oc_collect SET: into $SAMPLES_DIR/SET (as OUT), the database and a JSONL dump of its tables,
# `export` of every session, each turn's stdout and the config; sets DB
oc_collect() {
  OUT="$SAMPLES_DIR/$1"
  rm -rf "$OUT"; mkdir -p "$OUT/cli-stdout" "$OUT/export"
  local data="$HOME_DIR/.local/share/$OC_NAME" s
  DB="$data/$OC_NAME.db"
  dump_sqlite "$DB" "$OUT/db-dump"
  cp "$DB" "$OUT/$OC_NAME.db"
  [ -d "$data/storage" ] && cp -a "$data/storage" "$OUT/storage"
  for s in $(sqlite3 "$DB" 'SELECT id FROM session ORDER BY time_created'); do
    "${CENV[@]}" "$OC" export "$s" < /dev/null > "$OUT/export/$s.json" 2> /dev/null || true
  done
  cp "$RUN"/*.jsonl "$OUT/cli-stdout/"; rm -f "$OUT/cli-stdout/mock-requests.jsonl"
  cp "$HOME_DIR/.config/$OC_NAME/$OC_NAME.json" "$OUT/$OC_NAME.json"
}
# oc_info_head: the lines of run-info.txt both drivers of a forked session write first
oc_info_head() {
  echo "cli: $OC_NAME $VERSION"
  echo "main session id: $SID"
  echo "fork (run --session --fork) session id: $FORK_SID"
  echo "sessions in db:"; sqlite3 "$DB" 'SELECT id, parent_id, title FROM session ORDER BY time_created' | sed 's/^/  /'
  echo "mock requests:"; summarize_mock | sed 's/^/  /'
}
