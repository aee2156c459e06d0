#!/usr/bin/env node
// Drill-down benchmark (issue 12): `overview` and `turns` of a session against `show` of the same
// session, goal ≤ 1.5× show; with the baselines of the same run (bare `node -e ''`, and a plain
// JSON.parse of every line of the session's file). Fresh processes, median of --runs (the three
// commands of a session take turns, so the load of a shared machine falls on each alike), in the
// default environment and a minimal one (`env -i PATH HOME`: NODE_EXTRA_CA_CERTS, set on this
// machine, slows every node start).
// The corpus is the agents corpus (bench/agents-corpus.mjs), 1,000 sessions by default; the
// sessions timed are the median-sized and the largest of each provider.
// Usage: node bench/overview.mjs [--corpus HOME] [--sessions N] [--mb M] [--runs R]
// Needs `npm run build` first (it runs bin/sivtr.js like a user does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateCorpus } from './agents-corpus.mjs';
import { jsonlFiles, median, numericArgs, plainParse } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');

/** @param {string[]} argv @param {NodeJS.ProcessEnv} env @param {number} runs */
function timed(argv, env, runs, cmd = process.execPath) {
  const times = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, argv, { env, cwd: env.HOME, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i > 0) times.push(ms); // the first run fills the page cache
  }
  return median(times);
}

/**
 * Medians of several commands timed in turns (round r runs them starting from the r-th), so a
 * change of load on a shared machine weighs on each alike instead of on whichever ran then.
 * @param {Record<string, string[]>} commands @param {NodeJS.ProcessEnv} env @param {number} runs
 * @returns {Record<string, number>}
 */
function timedTogether(commands, env, runs) {
  const names = Object.keys(commands);
  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs + 1; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const argv = commands[name];
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, argv, { env, cwd: env.HOME, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
      if (i > 0) times[name].push(ms); // the first round fills the page cache
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

/** The session id inside a corpus file name (`<uuid>.jsonl`, `rollout-<ts>-<uuid>.jsonl`, `<ts>_<uuid>.jsonl`). */
const idOf = (/** @type {string} */ path) => /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(path)?.[1];

/** @param {string} home */
function chosenSessions(home) {
  /** @type {{ provider: string, id: string, path: string, size: number, which: string }[]} */
  const out = [];
  for (const [provider, dir] of /** @type {const} */ ([['claude', '.claude'], ['codex', '.codex'], ['pi', '.pi']])) {
    const files = jsonlFiles(join(home, dir)).map((path) => ({ path, size: statSync(path).size })).sort((a, b) => a.size - b.size);
    if (files.length === 0) continue;
    const mid = files[files.length >> 1];
    const big = files.at(-1);
    for (const [which, f] of /** @type {const} */ ([['median', mid], ['largest', big]])) {
      const id = f && idOf(f.path);
      if (f && id) out.push({ provider, id, path: f.path, size: f.size, which });
    }
  }
  return out;
}

async function main() {
  const opts = numericArgs({ corpus: undefined, sessions: 1000, mb: 256, runs: 7 });
  const made = opts.corpus === undefined ? mkdtempSync(join(tmpdir(), 'sivtr-bench-overview-')) : undefined;
  const home = opts.corpus ?? made ?? '';
  try {
    if (made) {
      const t0 = Date.now();
      const { sessions, bytes } = generateCorpus(home, { sessions: opts.sessions, mb: opts.mb });
      process.stdout.write(`corpus: ${sessions} sessions, ${(bytes / 1048576).toFixed(0)} MB (${((Date.now() - t0) / 1000).toFixed(1)} s to write)\n`);
    }
    const envs = /** @type {const} */ ([
      ['default env', { ...process.env, HOME: home, SIVTR_CLIPBOARD: 'none' }],
      ['minimal env', { PATH: process.env.PATH, HOME: home }],
    ]);
    const sessions = chosenSessions(home);
    for (const [label, env] of envs) {
      const bare = timed(['-e', ''], env, opts.runs);
      process.stdout.write(`\n${label}: bare node -e '' ${bare.toFixed(1)} ms\n`);
      process.stdout.write('session                     size      parse     show   overview      turns   overview/show  turns/show\n');
      for (const s of sessions) {
        const t0 = process.hrtime.bigint();
        await plainParse([s.path]);
        const parse = Number(process.hrtime.bigint() - t0) / 1e6;
        const ref = `${s.provider}/${s.id}`;
        const { show, overview, turns } = timedTogether({ show: [BIN, 'show', ref], overview: [BIN, 'overview', ref], turns: [BIN, 'turns', ref] }, env, opts.runs);
        const name = `${s.provider} ${s.which}`.padEnd(22);
        const row = [
          name,
          `${(s.size / 1048576).toFixed(1)} MB`.padStart(9),
          `${parse.toFixed(1)} ms`.padStart(10),
          `${show.toFixed(1)} ms`.padStart(10),
          `${overview.toFixed(1)} ms`.padStart(10),
          `${turns.toFixed(1)} ms`.padStart(10),
          `${(overview / show).toFixed(2)}×`.padStart(15),
          `${(turns / show).toFixed(2)}×`.padStart(11),
        ];
        process.stdout.write(`${row.join(' ')}\n`);
      }
    }
    process.stdout.write('\ngoal: overview and turns ≤ 1.5× show of the same session\n');
  } finally {
    if (made) rmSync(made, { recursive: true, force: true });
  }
}

await main();
