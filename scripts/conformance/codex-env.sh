# Sourced by run-codex*.sh after start_mock: Codex's config pointed at the mock, its environment
# (CENV), its version, and codex_x / thread_of to run a turn and read its thread id.
mkdir -p "$HOME_DIR/.codex"
cat > "$HOME_DIR/.codex/config.toml" <<EOF
model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false

[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:$MOCK_PORT/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
EOF
set_base_env
CENV=("${BASE_ENV[@]}" CODEX_HOME="$HOME_DIR/.codex" MOCK_API_KEY=dummy-key)
cd "$PROJ"
VERSION="$("${CENV[@]}" "$CODEX" --version 2>/dev/null)"

codex_x() { # codex_x NAME args...   (stdout is the --json event stream)
  local name="$1"; shift
  "${CENV[@]}" timeout 120 "$CODEX" exec "$@" < /dev/null > "$RUN/$name.jsonl" 2> "$RUN/$name.err" \
    || echo "WARNING: $name exited $?" >&2
}
thread_of() { node -e '
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    try { const o = JSON.parse(l); if (o.thread_id) { console.log(o.thread_id); break; } } catch {}
  }' "$1"; }
