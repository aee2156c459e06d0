#!/usr/bin/env bash
# OpenCode (opencode-ai) writing a file, against the mock OpenAI Chat Completions API (provider
# "mock" as in run-opencode.sh). The project is a git repository, so OpenCode's snapshots run and
# each step that changed files gets OpenCode's own record of them (a `patch` part: hash, files).
#   turn 1  run: write(greeting.txt), final text
#   turn 2  run --session <id>: edit(greeting.txt), final text
#   turn 3  the same: bash(sh make-banner.sh), a script that writes banner.txt, final text
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OPENCODE="$AGENTS_ROOT/opencode/node_modules/.bin/opencode"
fresh_run opencode-edits
start_mock "${PORT:-4156}"
OC="$OPENCODE" OC_NAME=opencode OC_SCHEMA="https://opencode.ai/config.json"
source "$(dirname "${BASH_SOURCE[0]}")/opencode-env.sh"
oc_setup OPENCODE
cd "$PROJ"
make_banner_script
# a repository with one commit: OpenCode takes snapshots only of git projects
"${BASE_ENV[@]}" git init -q . && "${BASE_ENV[@]}" git add notes.txt \
  && "${BASE_ENV[@]}" git -c user.name=driver -c user.email=driver@localhost commit -q -m notes
VERSION="$(oc_version)"

oc turn1 "$P_CREATE"
SID="$(sid_of "$RUN/turn1.jsonl")"
oc turn2 --session "$SID" "$P_CHANGE"
oc turn3 --session "$SID" "$P_SCRIPT"
stop_mock

OUT="$SAMPLES_DIR/opencode-edits"
rm -rf "$OUT"; mkdir -p "$OUT/cli-stdout"
DB="$HOME_DIR/.local/share/opencode/opencode.db"
sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE);' > /dev/null
cp "$RUN"/turn*.jsonl "$OUT/cli-stdout/"
{
  echo "cli: opencode $VERSION"
  echo "main session id: $SID (turns 1-3)"
  echo "greeting.txt at the end: $(cat "$PROJ/greeting.txt" 2>/dev/null || echo '(missing)')"
  echo "part types:"; sqlite3 "$DB" "SELECT json_extract(data,'\$.type'), count(*) FROM part GROUP BY 1" | sed 's/^/  /'
  echo "mock requests:"; summarize_mock | sed 's/^/  /'
} > "$OUT/run-info.txt"
cat "$OUT/run-info.txt"
