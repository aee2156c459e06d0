# Shared helpers for the run-*.sh drivers. Source it; do not run it.
#
# Layout (override with env):
#   AGENTS_ROOT  /tmp/realagents            npm installs live in $AGENTS_ROOT/<name>
#   RUNS_ROOT    $AGENTS_ROOT/runs          one fresh folder per provider run
#   SAMPLES_DIR  (required) where the transcripts are copied, e.g. <project>/fixtures/real
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
AGENTS_ROOT="${AGENTS_ROOT:-/tmp/realagents}"
RUNS_ROOT="${RUNS_ROOT:-$AGENTS_ROOT/runs}"
SAMPLES_DIR="${SAMPLES_DIR:?set SAMPLES_DIR to where the sessions go, e.g. fixtures/real in the project (this folder is read-only in CI)}"

# The two prompts every provider gets. The mock keys on "echo hello" and
# "notes.txt" (tool calls) and answers anything else with plain text.
P1='Please run `echo hello` in the shell and then read notes.txt, and tell me what you found.'
P2='Thanks. Now answer in plain text only: what is the capital of France?'
# The two prompts of the *-edits sets: the mock keys on "greeting.txt" and writes it with the
# client's own tool (created the first time, changed the second).
P_CREATE='Please create greeting.txt with a short greeting.'
P_CHANGE='Now change the greeting in greeting.txt.'
# ... and a write no command line shows: the script writes banner.txt (make_banner_script)
P_SCRIPT='Last: run `sh make-banner.sh` in the shell.'
make_banner_script() { printf '#!/bin/sh\necho "Welcome banner" > banner.txt\n' > "$PROJ/make-banner.sh"; }

# fresh_run NAME -> sets RUN, HOME_DIR, PROJ; creates proj/notes.txt
fresh_run() {
  RUN="$RUNS_ROOT/$1"
  rm -rf "$RUN"
  mkdir -p "$RUN/home" "$RUN/proj"
  HOME_DIR="$RUN/home"
  PROJ="$RUN/proj"
  echo "These are my notes. The secret word is banana." > "$PROJ/notes.txt"
}

# start_mock PORT -> starts mock-llm.cjs on 127.0.0.1:PORT, log in $RUN/mock-requests.jsonl
start_mock() {
  MOCK_PORT="$1"
  MOCK_LOG="$RUN/mock-requests.jsonl" MOCK_WORKDIR="$PROJ" \
    node "$HERE/mock-llm.cjs" "$MOCK_PORT" > "$RUN/mock.out" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 1 50); do
    if curl -s -o /dev/null "http://127.0.0.1:$MOCK_PORT/__ready"; then return 0; fi
    sleep 0.1
  done
  echo "mock did not start" >&2; cat "$RUN/mock.out" >&2; return 1
}

stop_mock() {
  if [ -n "${MOCK_PID:-}" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; MOCK_PID=; fi
}

# set_base_env -> array BASE_ENV: base environment for every client: clean env, fresh HOME, and all proxy
# variables pointed at the mock, which refuses CONNECT tunnels. So a client
# that tries to reach anything besides the mock (telemetry, update checks,
# plugin sync) is turned away on 127.0.0.1 and never leaves the machine.
set_base_env() {
  BASE_ENV=(env -i
    PATH=/usr/local/bin:/usr/bin:/bin
    HOME="$HOME_DIR" TERM=dumb LANG=C.UTF-8
    HTTPS_PROXY="http://127.0.0.1:$MOCK_PORT" HTTP_PROXY="http://127.0.0.1:$MOCK_PORT"
    https_proxy="http://127.0.0.1:$MOCK_PORT" http_proxy="http://127.0.0.1:$MOCK_PORT"
    ALL_PROXY="http://127.0.0.1:$MOCK_PORT"
    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost)
}

# summarize_mock -> one line per request the mock saw (method, url)
summarize_mock() {
  node -e '
    const fs = require("fs");
    const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean);
    const counts = {};
    for (const l of lines) { const o = JSON.parse(l); if (!o.method || o.url === "/__ready") continue;
      const k = o.method + " " + (o.method === "CONNECT" ? o.url + " (refused)" : o.url.split("?")[0]);
      counts[k] = (counts[k] || 0) + 1; }
    for (const [k, n] of Object.entries(counts)) console.log(`${n}x ${k}`);
  ' "$RUN/mock-requests.jsonl"
}

# dump_sqlite DB OUTDIR -> OUTDIR/schema.sql (the CREATE statements) and one
# OUTDIR/<table>.jsonl per table, one JSON object per row in rowid order
# (BLOB columns come out the way `sqlite3 -json` writes them).
# Checkpoints the WAL first, so a copy of DB taken afterwards holds every row.
dump_sqlite() {
  local db="$1" out="$2" t
  mkdir -p "$out"
  sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE);' > /dev/null
  sqlite3 "$db" .schema > "$out/schema.sql"
  # every table except SQLite's own and the shadow tables of FTS virtual tables
  # (<vtab>_data, _idx, _content, _docsize, _config), whose rows are the index itself
  for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master m WHERE type='table' AND name NOT LIKE 'sqlite_%'
      AND NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.type='table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%'
        AND m.name IN (v.name||'_data', v.name||'_idx', v.name||'_content', v.name||'_docsize', v.name||'_config'))
      ORDER BY name"); do
    sqlite3 -json "$db" "SELECT * FROM \"$t\"" | node -e '
      const rows = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]");
      for (const r of rows) process.stdout.write(JSON.stringify(r) + "\n");' > "$out/$t.jsonl"
  done
}

trap stop_mock EXIT
