#!/usr/bin/env node
// Search benchmark (issue 4). Against baselines measured in the same run:
//   1. cold index build (first `sivtr search`, no index.db)     vs a plain JSON.parse of every line   goal ≤ 2×
//   2. `sivtr search "connection refused"` as a fresh process    vs bare `node -e ''`                  goal ≤ 1.5×
//   3. index.db size                                              vs corpus size
// The corpus is the agents corpus (bench/agents-corpus.mjs: Claude/Codex/Pi sessions in a HOME-like
// layout) plus 10,000 terminal records written here, some of them holding "connection refused".
// Usage: node bench/search.mjs [--corpus HOME] [--sessions N] [--mb M] [--runs R] [--cold-runs C]
// Needs `npm run build` first (it runs bin/sivtr.js like a user does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateCorpus } from './agents-corpus.mjs';
import { median, numericArgs, plainParse } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');

function args() {
  const out = numericArgs({ corpus: undefined, sessions: 1000, mb: 1024, runs: 10, 'cold-runs': undefined, records: 10_000 });
  out.coldRuns = out['cold-runs'] ?? out.runs;
  return out;
}


function run(argv, env, { allowFail = false } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && !allowFail) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** 10,000 terminal records in 20 logs; every 250th failed with "Connection refused". */
function writeTerminalRecords(dataDir, count) {
  const dir = join(dataDir, 'terminals');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logs = 20;
  const commands = ['npm test', 'git status', 'make build', 'ls -la src', 'cargo check', 'docker ps', 'kubectl get pods', 'curl -sS localhost:8080/health'];
  const start = Date.parse('2026-10-01T00:00:00Z');
  for (let l = 0; l < logs; l++) {
    const lines = [];
    for (let i = l; i < count; i += logs) {
      const command = commands[i % commands.length];
      const refused = i % 250 === 7;
      const output = refused
        ? `curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused (record ${i})`
        : `${command} output line ${i}\n${'result ok '.repeat(1 + (i % 12))}\nexit status ${i % 5 === 0 ? 1 : 0}`;
      lines.push(JSON.stringify({ prompt: `me@box:~/proj-${l}$ `, command, output, cwd: `/home/me/proj-${l}`, ended_at: new Date(start + i * 60_000).toISOString(), duration_ms: i % 900, exit_code: refused || i % 5 === 0 ? 1 : 0 }));
    }
    writeFileSync(join(dir, `${1000 + l}-${1764000000 + l}.jsonl`), lines.join('\n') + '\n', { mode: 0o600 });
  }
}

function jsonlFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) jsonlFiles(p, out);
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

const sizeOf = (paths) => paths.reduce((n, p) => n + statSync(p).size, 0);
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

async function main() {
  const opts = args();
  const scratch = mkdtempSync(join(tmpdir(), 'sivtr-search-bench-'));
  try {
    let home = opts.corpus;
    if (!home) {
      home = join(scratch, 'home');
      const t0 = Date.now();
      const { bytes } = generateCorpus(home, opts);
      process.stderr.write(`corpus: ${opts.sessions} sessions, ${mb(bytes)} generated in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
    const data = join(scratch, 'data');
    writeTerminalRecords(data, opts.records);
    const env = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(scratch, 'config'), SIVTR_CLIPBOARD: 'none' };
    const files = [...jsonlFiles(home), ...jsonlFiles(join(data, 'terminals'))];
    const corpusBytes = sizeOf(files);

    // 1. Cold build vs JSON.parse of every line.
    const parseTimes = [];
    let lines = 0;
    for (let i = 0; i < opts.coldRuns; i++) {
      const t0 = process.hrtime.bigint();
      lines = await plainParse(files);
      parseTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const coldTimes = [];
    for (let i = 0; i < opts.coldRuns; i++) {
      for (const f of readdirSync(data)) if (f.startsWith('index.db')) rmSync(join(data, f));
      rmSync(join(data, 'cache'), { recursive: true, force: true });
      coldTimes.push(run([BIN, 'search', 'connection refused'], env).ms);
      process.stderr.write(`cold build ${i + 1}/${opts.coldRuns}: ${fmt(coldTimes.at(-1))}\n`);
    }
    const indexBytes = readdirSync(data).filter((f) => f.startsWith('index.db')).reduce((n, f) => n + statSync(join(data, f)).size, 0);

    // 2. Warm searches as fresh processes vs bare node, interleaved so drift hits all alike.
    const needle = 'tok-claude-12-3';
    const commands = [['-e', ''], [BIN, 'search', 'connection refused'], [BIN, 'search', needle], [BIN, 'search', '会话']];
    const times = commands.map(() => []);
    for (let i = 0; i < opts.runs + 2; i++) {
      commands.forEach((argv, k) => {
        const { ms } = run(argv, env);
        if (i >= 2) times[k].push(ms); // two warm-up rounds fill the page cache
      });
    }
    const [bare, refused, tok, cjk] = times.map(median);

    // 3. What it finds, and the same answer without the index.
    const indexed = run([BIN, 'search', 'connection refused', '--format', 'json', '--limit', '20'], env).stdout;
    const direct = run([BIN, 'search', 'connection refused', '--format', 'json', '--limit', '20', '--no-index'], env);
    const hits = JSON.parse(indexed).hits;
    const sources = [...new Set(hits.map((h) => h.source))];

    const parse = median(parseTimes);
    const cold = median(coldTimes);
    const report = [
      `corpus: ${files.length} files, ${lines} lines, ${mb(corpusBytes)} (agents + ${opts.records} terminal records)`,
      `1. cold index build (first search, fresh process): ${fmt(cold)}   JSON.parse of every line: ${fmt(parse)}   ratio ${(cold / parse).toFixed(2)}×  (goal ≤ 2×)`,
      `2. bare node -e '': ${fmt(bare)}`,
      `   search "connection refused": ${fmt(refused)}  ratio ${(refused / bare).toFixed(2)}×  (goal ≤ 1.5×)`,
      `   search ${needle}: ${fmt(tok)}  ratio ${(tok / bare).toFixed(2)}×`,
      `   search 会话 (two characters: instr scan): ${fmt(cjk)}  ratio ${(cjk / bare).toFixed(2)}×`,
      `3. index.db: ${mb(indexBytes)} for ${mb(corpusBytes)} of sources (${((indexBytes / corpusBytes) * 100).toFixed(1)}%)`,
      `   "connection refused": ${JSON.parse(indexed).total} hits from ${sources.join(', ')}; --no-index took ${fmt(direct.ms)} and ${direct.stdout === indexed ? 'gave the same answer' : 'DIFFERED'}`,
    ];
    process.stdout.write(report.join('\n') + '\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
