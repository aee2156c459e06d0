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
set_base_env
CENV=("${BASE_ENV[@]}" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false
  COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1" COPILOT_PROVIDER_TYPE=openai
  COPILOT_PROVIDER_API_KEY=dummy-key COPILOT_MODEL=mock-model)
cd "$PROJ"
make_banner_script
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
