#!/usr/bin/env node
// Agent transcript benchmark (issue 3). Against a baseline measured in the same run:
//   1. `sivtr sessions --global`, warm (listing cache filled)   vs bare `node -e ''`   goal ≤ 1.5×
//   2. `sivtr copy claude out --print`                           vs bare `node -e ''`
//   3. full parse of every session (discover + load)            vs a plain JSON.parse of every line  goal ≤ 2×
// Usage: node bench/agents.mjs [--corpus DIR] [--sessions N] [--mb M] [--runs R]
// Without --corpus a corpus is generated (bench/agents-corpus.mjs) into a temp dir and removed after.
// Needs `npm run build` first (it runs dist/ through bin/sivtr.js like a user does).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { generateCorpus } from './agents-corpus.mjs';
import { median, numericArgs, plainParse } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');

function args() {
  return numericArgs({ corpus: undefined, sessions: 1000, mb: 1024, runs: 10 });
}


function timeProcess(argv, env, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Median of `runs` interleaved runs of each command, so drift hits all of them alike. */
function compareProcesses(commands, runs, env, cwd) {
  const times = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach((argv, k) => times[k].push(timeProcess(argv, env, cwd)));
  return times.map(median);
}

async function main() {
  const opts = args();
  let corpus = opts.corpus;
  let generated;
  if (!corpus) {
    generated = mkdtempSync(join(tmpdir(), 'sivtr-agents-bench-'));
    corpus = join(generated, 'home');
    const t0 = Date.now();
    const { bytes } = generateCorpus(corpus, opts);
    process.stderr.write(`corpus: ${opts.sessions} sessions, ${(bytes / 1048576).toFixed(0)} MB generated in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  if (!existsSync(join(ROOT, 'dist', 'sivtr.cjs'))) throw new Error('run `npm run build` first');
  const dataDir = mkdtempSync(join(tmpdir(), 'sivtr-agents-bench-data-'));
  const env = { PATH: process.env.PATH, HOME: corpus, SIVTR_DATA_DIR: dataDir, SIVTR_CLIPBOARD: 'none', LANG: 'C.UTF-8' };
  const cwd = corpus;
  try {
    // 1. listing, cold once (fills the cache), then warm against bare node
    const cold = timeProcess([BIN, 'sessions', '--global'], env, cwd);
    // `sessions terminal` with no logs: the CLI's own start-up floor, no agent work at all
    const [bare, floor, listing, copy] = compareProcesses([['-e', ''], [BIN, 'sessions', 'terminal'], [BIN, 'sessions', '--global'], [BIN, 'copy', 'claude', 'out', '--print']], opts.runs, env, cwd);
    console.log(`bare node -e ''                 ${bare.toFixed(1)} ms`);
    console.log(`sivtr start-up floor            ${floor.toFixed(1)} ms  = ${(floor / bare).toFixed(2)}× bare node (\`sessions terminal\`, nothing recorded)`);
    console.log(`sessions --global (cold, once)  ${cold.toFixed(1)} ms`);
    console.log(`sessions --global (warm)        ${listing.toFixed(1)} ms  = ${(listing / bare).toFixed(2)}× bare node (goal ≤ 1.5×), +${(listing - floor).toFixed(1)} ms over the floor`);
    console.log(`copy claude out --print         ${copy.toFixed(1)} ms  = ${(copy / bare).toFixed(2)}× bare node`);

    // 3. full parse in-process: the providers bundled from src/, against plain JSON.parse
    const outfile = join(dataDir, 'agents-bundle.mjs');
    await build({ entryPoints: [join(ROOT, 'src', 'agents', 'registry.ts')], outfile, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning' });
    const { allProviders } = await import(outfile);
    const summaries = [];
    for (const p of allProviders()) for await (const s of p.discover({ env })) summaries.push([p, s]);
    const paths = summaries.map(([, s]) => s.location);
    const parseRuns = [];
    const plainRuns = [];
    let blocks = 0;
    let lines = 0;
    for (let i = 0; i < opts.runs; i++) {
      let t0 = process.hrtime.bigint();
      lines = await plainParse(paths);
      plainRuns.push(Number(process.hrtime.bigint() - t0) / 1e6);
      t0 = process.hrtime.bigint();
      blocks = 0;
      for (const [p, s] of summaries) blocks += (await p.load(s, { env })).blocks.length;
      parseRuns.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const plain = median(plainRuns);
    const parse = median(parseRuns);
    console.log(`plain JSON.parse of every line  ${plain.toFixed(0)} ms  (${summaries.length} sessions, ${lines} lines)`);
    console.log(`full parse (discover + load)    ${parse.toFixed(0)} ms  = ${(parse / plain).toFixed(2)}× plain JSON.parse (goal ≤ 2×), ${blocks} blocks`);
    console.log(`(median of ${opts.runs} runs each)`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (generated) rmSync(generated, { recursive: true, force: true });
  }
}

await main();
