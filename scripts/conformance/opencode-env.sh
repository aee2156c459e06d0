# Sourced by the drivers of OpenCode and of its fork Kilo (run-opencode*.sh, run-kilo.sh) in $PROJ,
# with OC (the CLI), OC_NAME (opencode | kilo: the config folder and file) and OC_SCHEMA set.
#   write_config CONTEXT OUTPUT  the CLI's config: provider "mock" (the bundled
#                                @ai-sdk/openai-compatible) pointed at the mock, tools allowed
#   oc_env VAR_PREFIX            CENV: the base environment plus the CLI's switches for a quiet,
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
      "models": { "mock-model": { "name": "Mock Model", "tool_call": true, "limit": { "context": $1, "output": $2 } } }
    }
  }
}
EOF
}
oc_env() {
  local p="$1"
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
