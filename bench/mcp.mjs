#!/usr/bin/env node
// MCP server benchmark (issue 13): one long-lived `sivtr mcp`, driven by the SDK's own client over
// stdio, on the 1,000-session agents corpus (bench/agents-corpus.mjs) plus terminal records.
//   goal: a `search` call answered in ≤ 20 ms p95 after the first (warm process, warm index)
// Printed beside it, from the same run: bare `node -e ''`, `sivtr --version`, the server's own
// start (spawn → initialize answered), the first search (which builds the index), a one-shot
// `sivtr search` in a fresh process, and `rg -uu -l` over the same files; in the default env
// (NODE_EXTRA_CA_CERTS is set on this machine and slows every node start) and a minimal one.
// Usage: node bench/mcp.mjs [--corpus HOME] [--sessions N] [--mb M] [--runs R]
// Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateCorpus } from './agents-corpus.mjs';
import { median, numericArgs, timeRuns } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** 2,000 terminal records in 4 logs; every 100th failed with "Connection refused". */
function writeTerminalRecords(dataDir) {
  const dir = join(dataDir, 'terminals');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const start = Date.parse('2026-10-01T00:00:00Z');
  for (let l = 0; l < 4; l++) {
    const lines = [];
    for (let i = l; i < 2000; i += 4) {
      const refused = i % 100 === 7;
      const output = refused ? `curl: (7) Failed to connect to localhost port 8080: Connection refused (record ${i})` : `make output line ${i}\n${'ok '.repeat(1 + (i % 9))}`;
      lines.push(JSON.stringify({ prompt: '$ ', command: refused ? 'curl localhost:8080' : 'make build', output, cwd: `/home/me/proj-${l}`, ended_at: new Date(start + i * 60_000).toISOString(), duration_ms: 5, exit_code: refused ? 7 : 0 }));
    }
    writeFileSync(join(dir, `${2000 + l}-${1764000000 + l}.jsonl`), lines.join('\n') + '\n', { mode: 0o600 });
  }
}

async function connect(env) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, cwd: env.HOME, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return { client, startMs: performance.now() - t0, pid: transport.pid };
}

/**
 * The server's CPU time so far (user + system, all its threads), from /proc; undefined elsewhere.
 * Beside the wall times: on a machine others load, a call's wall time is mostly waiting for a core.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return undefined;
  }
}

async function call(client, name, args) {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`${name} failed: ${r.content[0].text}`);
  return { ms, text: r.content[0].text };
}

// Specific queries, as an agent asks them: a turn's unique token (session k of the corpus is
// provider k % 3's) or an error message of the terminal records; every one distinct, so no answer
// comes from the server's memory of an earlier one.
const PROVIDERS = ['claude', 'codex', 'pi'];
const specific = (i, sessions) => {
  const k = (i * 37) % sessions;
  return i % 4 === 3 ? `Failed to connect to localhost port 8080 (record ${100 * (i % 20) + 7})` : `tok-${PROVIDERS[k % 3]}-${k}-1`;
};
// Words every synthetic session is made of: each matches most of the corpus (thousands of hits
// the engine must not read whole to rank), the same in a one-shot `sivtr search`. Distinct
// queries, so no answer comes from the server's memory of an earlier one.
const COMMON = ['parser config', 'error warning', 'session token', 'cache index', 'request response', 'module import', 'stream buffer', 'git commit',
  'build test', 'deploy server', 'database query', 'user admin', 'timeout retry', 'queue worker', 'parser', 'error', 'token', 'function class const', 'merge rebase diff', 'login logout password'];

async function serverRun(env, runs, sessions) {
  const starts = [];
  for (let i = 0; i < 3; i++) {
    const { client, startMs } = await connect(env);
    starts.push(startMs);
    await client.close();
  }
  const { client, pid } = await connect(env);
  const first = await call(client, 'search', { query: 'connection refused' });
  const cpu0 = cpuMs(pid);
  const warm = [];
  const tokens = [];
  const errors = [];
  let found = 0;
  for (let i = 0; i < runs; i++) {
    const r = await call(client, 'search', { query: specific(i, sessions), limit: 10 });
    warm.push(r.ms);
    (i % 4 === 3 ? errors : tokens).push(r.ms);
    if (!r.text.startsWith('no hits')) found++;
  }
  if (found < runs) throw new Error(`${runs - found} of the specific queries found nothing: the corpus is not the one this bench expects`);
  const cpu1 = cpuMs(pid);
  const repeated = [];
  for (let i = 0; i < 20; i++) repeated.push((await call(client, 'search', { query: specific(i % 4, sessions), limit: 10 })).ms);
  // recent_commands before and after the common words: whether its slow calls are its own or
  // the garbage of a search before it.
  const recentBefore = [];
  for (let i = 0; i < 10; i++) recentBefore.push((await call(client, 'recent_commands', { n: 5 })).ms);
  const common = [];
  const cpu2 = cpuMs(pid);
  for (const q of COMMON) {
    const r = await call(client, 'search', { query: q, limit: 10 });
    if (r.text.startsWith('no hits')) throw new Error(`"${q}" found nothing: the corpus is not the one this bench expects`);
    common.push(r.ms);
  }
  const cpu3 = cpuMs(pid);
  const recent = [];
  for (let i = 0; i < 10; i++) recent.push((await call(client, 'recent_commands', { n: 5 })).ms);
  await client.close();
  const cpu = cpu0 === undefined || cpu3 === undefined ? undefined : { specific: cpu1 - cpu0, common: cpu3 - cpu2 };
  return { start: median(starts), first: first.ms, firstText: first.text, warm, tokens, errors, repeated, common, recentBefore, recent, cpu };
}

async function main() {
  const opts = numericArgs({ corpus: undefined, sessions: 1000, mb: 1024, runs: 60 });
  const scratch = mkdtempSync(join(tmpdir(), 'sivtr-mcp-bench-'));
  try {
    let home = opts.corpus && resolve(opts.corpus);
    if (!home) {
      home = join(scratch, 'home');
      const t0 = Date.now();
      const { bytes } = generateCorpus(home, opts);
      process.stderr.write(`corpus: ${opts.sessions} sessions, ${(bytes / 1048576).toFixed(1)} MB generated in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
    const data = join(scratch, 'data');
    writeTerminalRecords(data);
    const minimal = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(scratch, 'config'), SIVTR_CLIPBOARD: 'none' };
    const full = { ...process.env, ...minimal };
    const report = [`corpus: ${opts.sessions} sessions (${opts.mb} MB) + 2,000 terminal records; ${opts.runs} warm search calls per env; machine: ${process.env.BENCH_NOTE ?? 'see the lead’s note on load'}`];
    const hasRg = spawnSync('rg', ['--version']).status === 0;
    /** @type {[string, NodeJS.ProcessEnv][]} */
    const envs = [['minimal env', minimal], ['default env', full]];
    for (const [label, env] of envs) {
      const bare = timeRuns(process.execPath, ['-e', ''], { runs: 10, env });
      const version = timeRuns(process.execPath, [BIN, '--version'], { runs: 10, env });
      const server = await serverRun(env, opts.runs, opts.sessions);
      const oneShot = timeRuns(process.execPath, [BIN, 'search', 'tok-claude-12-3'], { runs: 5, env, cwd: home });
      const oneShotCommon = timeRuns(process.execPath, [BIN, 'search', 'parser', 'config'], { runs: 5, env, cwd: home });
      const rg = hasRg ? timeRuns('rg', ['-uu', '-l', 'tok-claude-12-3', home], { runs: 5, env }) : undefined;
      report.push(
        `${label}:`,
        `  warm search over MCP, ${opts.runs} distinct specific queries: p50 ${fmt(percentile(server.warm, 50))}, p95 ${fmt(percentile(server.warm, 95))} (goal ≤ 20 ms), max ${fmt(Math.max(...server.warm))}`,
        `    of them: a turn's token p50 ${fmt(percentile(server.tokens, 50))}, p95 ${fmt(percentile(server.tokens, 95))}; an error message (fewer hits with every word than the limit, so the engine ranks the any-word hits too) p50 ${fmt(percentile(server.errors, 50))}, p95 ${fmt(percentile(server.errors, 95))}`,
        `  the same query again (next page, or asked twice): p95 ${fmt(percentile(server.repeated, 95))}; recent_commands p50 ${fmt(percentile(server.recentBefore, 50))}, p95 ${fmt(percentile(server.recentBefore, 95))} (after the specific searches), p50 ${fmt(percentile(server.recent, 50))}, p95 ${fmt(percentile(server.recent, 95))} (after the common words)`,
        `  words most of the corpus holds, ${COMMON.length} distinct queries (${COMMON.slice(0, 3).join(', ')}, …): p50 ${fmt(percentile(server.common, 50))}, p95 ${fmt(percentile(server.common, 95))} (goal ≤ 20 ms), max ${fmt(Math.max(...server.common))}`,
        ...(server.cpu ? [`  the server's CPU time (all threads): ${server.cpu.specific} ms for the ${opts.runs} specific queries, ${server.cpu.common} ms for the ${COMMON.length} common-word queries (10 ms ticks)`] : []),
        `  first search of a new server: ${fmt(server.first)} (${label === 'minimal env' ? 'builds the index' : 'index already built'}); server start (spawn → initialize): ${fmt(server.start)}`,
        `  one-shot \`sivtr search parser config\` (fresh process, words most of the corpus holds) ${fmt(oneShotCommon)}`,
        `  baselines: bare node -e '' ${fmt(bare)}, sivtr --version ${fmt(version)}, one-shot \`sivtr search\` (fresh process, a turn's token) ${fmt(oneShot)}${rg === undefined ? '' : `, rg -uu -l ${fmt(rg)}`}`,
      );
      if (label === 'minimal env' && !/connection refused/i.test(server.firstText)) throw new Error(`the first search found nothing: ${server.firstText.slice(0, 200)}`);
    }
    process.stdout.write(report.join('\n') + '\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
