// Shared helpers for benchmarks: run a command N times, report the median wall time.
import { spawnSync } from 'node:child_process';
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** @param {{ runs?: number, env?: NodeJS.ProcessEnv, cwd?: string, input?: string }} [opts] */
export function timeRuns(cmd, args, opts = {}) {
  const { runs = 15, env = process.env, cwd, input } = opts;
  const times = [];
  for (let i = 0; i < runs + 2; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { env, cwd, input, stdio: ['pipe', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= 2) times.push(ms); // two warm-up runs fill the page cache
  }
  return median(times);
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const fmt = (ms) => `${ms.toFixed(1)} ms`;

/** The limit for JavaScript: JSON.parse of every line of every file, streamed. */
export async function plainParse(paths) {
  let lines = 0;
  for (const path of paths) {
    let rest = '';
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop();
      for (const line of parts) if (line) {
        JSON.parse(line);
        lines++;
      }
    }
    if (rest) JSON.parse(rest);
  }
  return lines;
}

/** `--name value` options over `defaults`: numbers where the default is a number (or absent), `--corpus` a path. */
export function numericArgs(defaults) {
  /** @type {Record<string, { type: 'string' }>} */
  const options = Object.fromEntries(Object.keys(defaults).map((k) => [k, { type: 'string' }]));
  const { values } = parseArgs({ options, strict: true });
  const out = { ...defaults };
  for (const [k, v] of Object.entries(values)) out[k] = k === 'corpus' ? v : Number(v);
  return out;
}

/** Every `.jsonl` file below `dir`, depth first. @param {string} dir @param {string[]} [out] @returns {string[]} */
export function jsonlFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) jsonlFiles(p, out);
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
