// Shared helpers for benchmarks: run a command N times, report the median wall time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';

/** @type {(paths: string[]) => number} */
const parseLines = createRequire(import.meta.url)('./parse-lines.cjs').parseLines;

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

/**
 * The limit for JavaScript: JSON.parse of every line of every file, each line decoded from the
 * file's bytes on its own. Decoding 1 MiB windows and splitting them, as this did before, made
 * every line of a window that held one non-ASCII character a two-byte string, which JSON.parse
 * reads more slowly: once the bench corpus held some Chinese, that baseline took 1.7× as long
 * (1.27 → 2.16 s at 300 MB) and flattered every ratio against it. Line by line it is 2–3× faster
 * than the windows on that corpus, so it is the stricter baseline.
 */
export async function plainParse(paths) {
  return parseLines(paths);
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

/** `count` terminal records in 20 logs; every 250th failed with "Connection refused". */
export function writeTerminalRecords(dataDir, count) {
  const dir = join(dataDir, 'terminals');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logs = 20;
  const commands = ['npm test', 'git status', 'make build', 'ls -la src', 'cargo check', 'docker ps', 'kubectl get pods', 'curl -sS localhost:8080/health'];
  const start = Date.parse('2026-10-01T00:00:00Z');
  const paths = [];
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
    const path = join(dir, `${1000 + l}-${1764000000 + l}.jsonl`);
    writeFileSync(path, lines.join('\n') + '\n', { mode: 0o600 });
    paths.push(path);
  }
  return paths;
}
