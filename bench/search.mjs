#!/usr/bin/env node
// Search benchmark (issue 9). Every goal against a baseline measured in the same run:
//   1. cold index build (first `sivtr search`, no index.db)  vs a plain JSON.parse of every line   goal ≤ 3× and ≥ 100 MB/s
//      the same for the terminal records alone                                                     goal ≤ 3×
//      (against the pass in this process, and against a process of its own that parses them: bench/parse-lines.cjs)
//      and the same build under V8's default tier-up budget beside it (src/store/build-tiering.ts)
//   2. index.db size                                          vs the corpus                         goal ≤ 30%
//   3. warm `search` and `sessions --global`, fresh processes vs bare `node -e ''`                  goal ≤ 1.5× (会话: ≤ 2×)
//      and, as a baseline only, the floor: node + the SQLite addon + open index.db + one row (bench/search-floor.cjs)
//      (a specific query, a needle, a two-character CJK word and two words most sessions hold)
//      warm `search "connection refused"`                     vs `rg -uu -l` over the same files     goal faster
//   4. an interrupted build (SIGINT half way) leaves a sound index.db, and the next search resumes
// Start-up ratios are printed for the default environment and for a minimal one (NODE_EXTRA_CA_CERTS,
// set on this machine, makes every node start slower).
// The corpus is the agents corpus (bench/agents-corpus.mjs: Claude/Codex/Pi sessions in a HOME-like
// layout) plus 10,000 terminal records written here, some of them holding "connection refused".
// Usage: node bench/search.mjs [--corpus HOME] [--sessions N] [--mb M] [--runs R] [--cold-runs C] [--records N]
//   npm run bench:search      the 300 MB corpus (300 sessions); npm run bench:search-1g: 1 GB (1,000 sessions)
// Needs `npm run build` first (it runs bin/sivtr.js like a user does).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateCorpus } from './agents-corpus.mjs';
import { jsonlFiles, median, numericArgs, plainParse, writeTerminalRecords } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const FLOOR = join(ROOT, 'bench', 'search-floor.cjs');
const PARSE_LINES = join(ROOT, 'bench', 'parse-lines.cjs');
const ADDON = join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

function args() {
  const out = numericArgs({ corpus: undefined, sessions: 1000, mb: 1024, runs: 10, 'cold-runs': undefined, records: 10_000 });
  out.coldRuns = out['cold-runs'] ?? Math.min(out.runs, 3);
  return out;
}

function run(argv, env, { cmd = process.execPath, allowFail = false } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && !allowFail) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const sizeOf = (paths) => paths.reduce((n, p) => n + statSync(p).size, 0);
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function clearIndex(data) {
  for (const f of readdirSync(data)) if (f.startsWith('index.db')) rmSync(join(data, f));
  rmSync(join(data, 'cache'), { recursive: true, force: true });
}

/**
 * The fastest of `runs` passes of JSON.parse over every line: the strictest baseline. The passes
 * of one bench run spread by up to half (0.52 to 1.10 s at 300 MB on this machine, the bench's
 * own heap and the page cache as they were), the cold builds they are set against far less.
 */
async function parseTime(files, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await plainParse(files);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Math.min(...times);
}

/** Medians of cold builds under each of `envs`, taken in turn so that drift in the load meets them alike; the last build's index is left. */
function coldTimes(envs, data, runs) {
  const times = envs.map(() => []);
  for (let i = 0; i < runs; i++) {
    envs.forEach(([label, env], k) => {
      clearIndex(data);
      times[k].push(run([BIN, 'search', 'connection refused'], env).ms);
      process.stderr.write(`${label} ${i + 1}/${runs}: ${fmt(times[k].at(-1))}\n`);
    });
  }
  return times.map(median);
}

/**
 * The terminal records' cold build against its baselines, measured in rounds: each round one cold
 * build, one bare `node -e ''`, one process that parses every line (bench/parse-lines.cjs) and
 * one JSON.parse pass of every line in this process (after a first, unmeasured pass warms it), so
 * every figure of a round meets the same load; medians, and the median of each round's own ratio.
 */
async function terminalRounds(env, data, files, bareEnv, rounds) {
  await plainParse(files);
  const all = [];
  for (let i = 0; i < rounds; i++) {
    clearIndex(data);
    const cold = run([BIN, 'search', 'connection refused'], env).ms;
    const bare = run(['-e', ''], bareEnv).ms;
    const fresh = run([PARSE_LINES, ...files], bareEnv).ms;
    const t0 = process.hrtime.bigint();
    await plainParse(files);
    const parse = Number(process.hrtime.bigint() - t0) / 1e6;
    all.push({ cold, bare, parse, fresh });
    process.stderr.write(`cold build, terminal records ${i + 1}/${rounds}: ${fmt(cold)} (bare node ${fmt(bare)}, JSON.parse ${fmt(parse)}, in a process of its own ${fmt(fresh)})\n`);
  }
  return {
    cold: median(all.map((r) => r.cold)),
    bare: median(all.map((r) => r.bare)),
    parse: median(all.map((r) => r.parse)),
    fresh: median(all.map((r) => r.fresh)),
    ratioFresh: median(all.map((r) => r.cold / r.fresh)),
    ratio: median(all.map((r) => r.cold / r.parse)),
    ratioNoStart: median(all.map((r) => (r.cold - r.bare) / r.parse)),
    rounds,
  };
}

const indexSize = (data) => readdirSync(data).filter((f) => f.startsWith('index.db')).reduce((n, f) => n + statSync(join(data, f)).size, 0);

/** Fresh processes, interleaved so drift hits all alike; two warm-up rounds fill the page cache. */
function warmTimes(commands, env, runs) {
  const times = commands.map(() => []);
  for (let i = 0; i < runs + 2; i++) {
    commands.forEach(({ cmd, argv }, k) => {
      const { ms } = run(argv, env, { cmd, allowFail: cmd !== process.execPath });
      if (i >= 2) times[k].push(ms);
    });
  }
  return times.map(median);
}

/** SIGINT half way through a cold build, then check the file and what the next search still had to do. */
async function interrupted(env, data, coldMs) {
  clearIndex(data);
  const child = spawn(process.execPath, [BIN, 'search', 'connection refused'], { env, cwd: env.HOME, stdio: 'ignore' });
  await new Promise((done) => setTimeout(done, coldMs / 2));
  child.kill('SIGINT');
  const code = await new Promise((done) => child.on('exit', (c, s) => done(c ?? s)));
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(join(data, 'index.db'), { readonly: true });
  const check = db.pragma('integrity_check', { simple: true });
  const kept = db.prepare('SELECT count(*) FROM files').pluck().get();
  db.close();
  const next = run([BIN, 'search', 'connection refused'], { ...env, SIVTR_INDEX_STATS: '1' });
  const line = next.stderr.split('\n').find((l) => l.startsWith('sivtr-index-stats '));
  const stats = line ? JSON.parse(line.slice('sivtr-index-stats '.length)) : {};
  return { code, check, kept, stats, ms: next.ms };
}

async function main() {
  const opts = args();
  const loadBefore = loadavg()[0];
  const scratch = mkdtempSync(join(tmpdir(), 'sivtr-search-bench-'));
  try {
    let home = opts.corpus && resolve(opts.corpus);
    if (!home) {
      home = join(scratch, 'home');
      const t0 = Date.now();
      const { bytes } = generateCorpus(home, opts);
      process.stderr.write(`corpus: ${opts.sessions} sessions, ${mb(bytes)} generated in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
    const data = join(scratch, 'data');
    const terminalFiles = writeTerminalRecords(data, opts.records);
    const minimal = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(scratch, 'config'), SIVTR_CLIPBOARD: 'none' };
    const full = { ...process.env, ...minimal };
    const files = [...jsonlFiles(home), ...terminalFiles];
    const corpusBytes = sizeOf(files);

    // 1. Cold builds vs JSON.parse of every line: the terminal records alone, then everything.
    const termOnly = join(scratch, 'term-data');
    mkdirSync(termOnly);
    writeTerminalRecords(termOnly, opts.records);
    const emptyHome = join(scratch, 'empty-home');
    mkdirSync(emptyHome);
    const termEnv = { ...minimal, HOME: emptyHome, SIVTR_DATA_DIR: termOnly };
    const term = await terminalRounds(termEnv, termOnly, terminalFiles, minimal, Math.max(opts.coldRuns, 5));
    const termIndex = indexSize(termOnly);
    const [bareForCold] = warmTimes([{ cmd: process.execPath, argv: ['-e', ''] }], minimal, 5);
    const parsePasses = Math.max(opts.coldRuns, 5);
    const parse = await parseTime(files, parsePasses);
    // Beside it, the same build under V8's default tier-up budget (see src/store/build-tiering.ts).
    const [coldDefaultTiering, cold] = coldTimes([['cold build, V8 default tier-up budget', { ...minimal, SIVTR_BUILD_TIERING: 'default' }], ['cold build', minimal]], data, opts.coldRuns);
    const indexBytes = indexSize(data);

    // 2. Interrupted and resumed.
    const stop = await interrupted(minimal, data, cold);

    // 3. Warm, fresh processes, in both environments; rg over the same files.
    const needle = 'tok-claude-12-3';
    const commands = [
      { cmd: process.execPath, argv: ['-e', ''] },
      { cmd: process.execPath, argv: [BIN, 'search', 'connection refused'] },
      { cmd: process.execPath, argv: [BIN, 'search', needle] },
      { cmd: process.execPath, argv: [BIN, 'search', '会话'] },
      { cmd: process.execPath, argv: [BIN, 'sessions', '--global'] },
      { cmd: process.execPath, argv: [BIN, 'search', 'parser config'] },
      { cmd: process.execPath, argv: [FLOOR, ADDON, join(data, 'index.db')] },
      { cmd: 'rg', argv: ['-uu', '-l', 'connection refused', home, join(data, 'terminals')] },
    ];
    const hasRg = spawnSync('rg', ['--version']).status === 0;
    const envs = [['minimal env', minimal], ['default env', full]];
    const warm = envs.map(([, env]) => warmTimes(hasRg ? commands : commands.slice(0, -1), env, opts.runs));

    // 4. What it finds, and the same answer without the index.
    const indexed = run([BIN, 'search', 'connection refused', '--format', 'json', '--limit', '20'], minimal).stdout;
    const direct = run([BIN, 'search', 'connection refused', '--format', 'json', '--limit', '20', '--no-index'], minimal);
    const hits = JSON.parse(indexed).hits;
    const sources = [...new Set(hits.map((h) => h.source))];

    const mbps = corpusBytes / 1048576 / (cold / 1000);
    const coldNoStart = cold - bareForCold;
    const report = [
      `corpus: ${files.length} files, ${mb(corpusBytes)} (agents + ${opts.records} terminal records); load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after (${process.env.BENCH_NOTE ?? 'a loaded machine makes every figure slower, the ratios less so'})`,
      `1. cold index build (first search, fresh process): ${fmt(cold)} = ${mbps.toFixed(1)} MB/s (goal ≥ 100 MB/s)   JSON.parse of every line (fastest of ${parsePasses} passes): ${fmt(parse)}   ratio ${ratio(cold, parse)} (goal ≤ 3×; ${ratio(coldNoStart, parse)} without node's own start-up)`,
      `   the same build under V8's default tier-up budget (SIVTR_BUILD_TIERING=default, builds taken in turn with the above): ${fmt(coldDefaultTiering)}, ratio ${ratio(coldDefaultTiering, parse)}`,
      `   terminal records alone (${mb(sizeOf(terminalFiles))}): ${fmt(term.cold)}   JSON.parse: ${fmt(term.parse)}   ratio ${ratio(term.cold, term.parse)} (goal ≤ 3×, node's start-up included); bare node start-up alone is ${fmt(term.bare)}, ${ratio(term.cold - term.bare, term.parse)} without it (medians of ${term.rounds} rounds, each a cold build, a bare node and a JSON.parse pass; the median of the rounds' own ratios: ${term.ratio.toFixed(2)}×, ${term.ratioNoStart.toFixed(2)}× without start-up)`,
      `   against JSON.parse of every line in a process of its own (node's start-up and the parse, as the issue's 50 ms for these records): ${fmt(term.fresh)}, ratio ${term.ratioFresh.toFixed(2)}× (median of the rounds' own)`,
      `2. index.db: ${mb(indexBytes)} for ${mb(corpusBytes)} of sources (${((indexBytes / corpusBytes) * 100).toFixed(1)}%, goal ≤ 30%); terminal records alone: ${((termIndex / sizeOf(terminalFiles)) * 100).toFixed(1)}%`,
      `   interrupted half way (exit ${stop.code}): integrity_check ${stop.check}, ${stop.kept} files already indexed; the next search re-read ${stop.stats.filesSeen - stop.stats.filesUnchanged} of ${stop.stats.filesSeen} files in ${fmt(stop.ms)}`,
    ];
    envs.forEach(([name], e) => {
      const [bare, refused, tok, cjk, sessions, common, floor, rg] = warm[e];
      report.push(
        `3. ${name}: bare node -e '': ${fmt(bare)}`,
        `   floor: node + the SQLite addon + open index.db + one row: ${fmt(floor)}  ${ratio(floor, bare)} (a baseline: a search spends ${fmt(refused - floor)} ("connection refused") and ${fmt(tok - floor)} (${needle}) above it)`,
        `   search "connection refused": ${fmt(refused)}  ${ratio(refused, bare)} (goal ≤ 1.5×)${rg === undefined ? '' : `   rg -uu -l: ${fmt(rg)} (${refused < rg ? 'search is faster' : 'rg is faster'})`}`,
        `   search ${needle}: ${fmt(tok)}  ${ratio(tok, bare)}`,
        `   search 会话 (two characters, bigram keys): ${fmt(cjk)}  ${ratio(cjk, bare)} (goal ≤ 2×)`,
        `   sessions --global: ${fmt(sessions)}  ${ratio(sessions, bare)} (goal ≤ 1.5×)`,
        `   search "parser config" (two words most sessions hold, one-shot; the MCP server's are bench/mcp.mjs): ${fmt(common)}  ${ratio(common, bare)} (goal ≤ 1.5×)`,
      );
    });
    report.push(`4. "connection refused": ${JSON.parse(indexed).total} hits from ${sources.join(', ')}; --no-index took ${fmt(direct.ms)} and ${direct.stdout === indexed ? 'gave the same answer' : 'DIFFERED'}`);
    process.stdout.write(report.join('\n') + '\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
