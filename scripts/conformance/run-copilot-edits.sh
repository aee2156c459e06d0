#!/usr/bin/env bash
# GitHub Copilot CLI (@github/copilot) writing a file, against the mock OpenAI Chat Completions API
# (BYOK settings and COPILOT_OFFLINE=true, as run-copilot.sh): the session's events then hold
# Copilot's own record of the change (session.shutdown codeChanges.filesModified).
#   turn 1  -p: create(greeting.txt), final text
#   turn 2  --resume <id>: edit(greeting.txt), final text
#   turn 3  the same: bash(sh make-banner.sh), a script that writes banner.txt, final text
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
COPILOT="$AGENTS_ROOT/copilot/node_modules/.bin/copilot"
fresh_run copilot-edits
start_mock "${PORT:-4155}"
source "$(dirname "${BASH_SOURCE[0]}")/copilot-env.sh"
make_banner_script

cop turn1 -p "$P_CREATE"
SID="$(sid_of "$RUN/turn1.jsonl")"
cop turn2 --resume "$SID" -p "$P_CHANGE"
cop turn3 --resume "$SID" -p "$P_SCRIPT"
stop_mock

OUT="$SAMPLES_DIR/copilot-edits"
rm -rf "$OUT"; mkdir -p "$OUT/cli-stdout"
C="$HOME_DIR/.copilot"
cp "$RUN"/turn*.jsonl "$OUT/cli-stdout/"
{
  echo "cli: $VERSION"
  echo "main session id: $SID (turns 1-3)"
  echo "greeting.txt at the end: $(cat "$PROJ/greeting.txt" 2>/dev/null || echo '(missing)')"
  echo "mock requests:"; summarize_mock | sed 's/^/  /'
  echo "files under ~/.copilot/session-state:"; (cd "$C" && find session-state -type f | sort | sed 's/^/  /')
} > "$OUT/run-info.txt"
cat "$OUT/run-info.txt"
