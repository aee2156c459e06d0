#!/usr/bin/env bash
# Claude Code (@anthropic-ai/claude-code) calling `sivtr mcp` as an MCP server, against the mock
# Anthropic Messages API. One print-mode turn:
#   the prompt asks Claude to search "the sivtr memory" for a phrase; the mock calls the MCP tool
#   mcp__sivtr__search with it; Claude Code runs the real `sivtr mcp` (this checkout's build) over
#   stdio and sends the tool result back; the mock's final answer names the refs it got.
# sivtr reads a seeded terminal log (the record the phrase is in). Output goes straight to
# fixtures/real/mcp-claude-<version>/: the transcript Claude Code wrote (home/), the seed
# (sivtr-data/), Claude's stdout (cli-stdout/), mcp-run.json and NOTES.md (not run.json: test/agents/real.test.ts reads those sets as plain claude sessions).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPO="$(cd "$HERE/../.." && pwd)"
CLAUDE="${CLAUDE_DIR:-$AGENTS_ROOT/claude}/node_modules/.bin/claude"
fresh_run mcp-claude
start_mock "${PORT:-4153}"
set_base_env
DATA="$RUN/sivtr-data"
mkdir -p "$DATA/terminals"
# The seed: two records of one terminal, the second one failed with the phrase the prompt names.
cat > "$DATA/terminals/f00dcafe.jsonl" <<'LOG'
{"prompt":"me@box:~/shop$ ","command":"git pull","output":"Already up to date.","cwd":"/home/me/shop","ended_at":"2026-11-30T09:58:00Z","duration_ms":420,"exit_code":0}
{"prompt":"me@box:~/shop$ ","command":"npm run deploy","output":"> shop@1.4.0 deploy\n> node scripts/deploy.js\n\nError: connect ECONNREFUSED 127.0.0.1:5432 (deploy-7731)\n    at TCPConnectWrap.afterConnect","cwd":"/home/me/shop","ended_at":"2026-11-30T10:00:00Z","duration_ms":1830,"exit_code":1}
LOG
cat > "$RUN/mcp.json" <<JSON
{"mcpServers":{"sivtr":{"type":"stdio","command":"$(command -v node)","args":["$REPO/bin/sivtr.js","mcp"],"env":{"SIVTR_DATA_DIR":"$DATA","SIVTR_CONFIG_DIR":"$RUN/sivtr-config"}}}}
JSON
CENV=("${BASE_ENV[@]}"
  ANTHROPIC_BASE_URL="http://127.0.0.1:$MOCK_PORT" ANTHROPIC_API_KEY=dummy-key
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
  DISABLE_AUTOUPDATER=1 DISABLE_BUG_COMMAND=1 CLAUDE_CODE_ENABLE_TELEMETRY=0)
cd "$PROJ"
VERSION="$("$CLAUDE" --version)"
PROMPT='Search the sivtr memory for "deploy-7731" and tell me which terminal record it came from.'
"${CENV[@]}" timeout 180 "$CLAUDE" -p "$PROMPT" --output-format json --mcp-config "$RUN/mcp.json" --strict-mcp-config \
  --allowedTools "mcp__sivtr__search" < /dev/null > "$RUN/turn1.json" 2> "$RUN/turn1.err" || echo "WARNING: claude exited $?" >&2
stop_mock
SID="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).session_id' "$RUN/turn1.json")"
SESSION_FILE="$(ls "$HOME_DIR"/.claude/projects/*/"$SID".jsonl)"
SHORT="${VERSION%% *}"
OUT="$REPO/fixtures/real/mcp-claude-$SHORT"
rm -rf "$OUT"; mkdir -p "$OUT/cli-stdout" "$OUT/home/.claude"
cp -a "$HOME_DIR/.claude/projects" "$OUT/home/.claude/"
mkdir -p "$OUT/sivtr-data" && cp -a "$DATA/terminals" "$OUT/sivtr-data/"
cp "$RUN/turn1.json" "$OUT/cli-stdout/"
node -e '
  const [out, version, sid, cwd, prompt] = process.argv.slice(1);
  const run = { set: "mcp-claude", agent: "claude", version: version.split(" ")[0], cli: version, ids: { main: sid }, cwd, prompt, server: "sivtr mcp (this checkout, bin/sivtr.js)", generated: new Date().toISOString().slice(0, 10) };
  require("fs").writeFileSync(out + "/mcp-run.json", JSON.stringify(run, null, 2) + "\n");' "$OUT" "$VERSION" "$SID" "$PROJ" "$PROMPT"
{
  echo "# mcp-claude-$SHORT: Claude Code $VERSION calling \`sivtr mcp\`"
  echo
  echo "Written by scripts/conformance/run-mcp-claude.sh: the real CLI in print mode with"
  echo "\`--mcp-config\` naming this checkout's \`sivtr mcp\`, the mock model calling \`mcp__sivtr__search\`."
  echo "\`sivtr-data/\` is the seeded terminal log sivtr searched; \`home/\` the transcript Claude Code wrote."
  echo
  echo "mock requests:"; summarize_mock | sed 's/^/- /'
} > "$OUT/NOTES.md"
echo "session $SID -> $OUT"
