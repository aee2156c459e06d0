#!/usr/bin/env bash
# Codex CLI (@openai/codex) writing a file, against the mock OpenAI Responses API: the rollout
# then holds Codex's own record of the change (event_msg patch_apply_end with its per-file
# changes). Codex offers no edit tool for an unknown model, so the mock sends `apply_patch` as a
# shell command, which Codex runs as a patch (and records as one).
#   turn 1  exec: apply_patch adds greeting.txt, final text
#   turn 2  exec resume <id>: apply_patch updates greeting.txt, final text
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CODEX="$AGENTS_ROOT/codex/node_modules/.bin/codex"
fresh_run codex-edits
start_mock "${PORT:-4154}"
mkdir -p "$HOME_DIR/.codex"
cat > "$HOME_DIR/.codex/config.toml" <<TOML
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
TOML
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

codex_x turn1 --json --skip-git-repo-check "$P_CREATE"
SID="$(thread_of "$RUN/turn1.jsonl")"
codex_x turn2 resume --json --skip-git-repo-check "$SID" "$P_CHANGE"
stop_mock

OUT="$SAMPLES_DIR/codex-edits"
rm -rf "$OUT"; mkdir -p "$OUT/cli-stdout"
cp -a "$HOME_DIR/.codex/sessions" "$OUT/"
cp "$RUN"/turn*.jsonl "$OUT/cli-stdout/"
cp "$HOME_DIR/.codex/config.toml" "$OUT/config.toml"
{
  echo "cli: $VERSION"
  echo "main session id: $SID (turns 1-2)"
  echo "greeting.txt at the end: $(cat "$PROJ/greeting.txt" 2>/dev/null || echo '(missing)')"
  echo "mock requests:"; summarize_mock | sed 's/^/  /'
  echo "files:"; (cd "$OUT" && find sessions -type f | sort | while read -r f; do echo "  $f $(wc -l < "$f") lines"; done)
} > "$OUT/run-info.txt"
cat "$OUT/run-info.txt"
