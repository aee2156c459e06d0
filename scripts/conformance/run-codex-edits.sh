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
source "$(dirname "${BASH_SOURCE[0]}")/codex-env.sh"

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
