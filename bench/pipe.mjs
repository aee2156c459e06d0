// `sivtr pipe` of a large log: wall time and peak memory (time(1) %M) against `cat` of the same
// file into a pipe and a bare `node -e ''`, in the default environment (NODE_EXTRA_CA_CERTS and
// all) and a minimal one. Two logs: plain lines, and plain lines after one coloured line (colour
// anywhere sends the output through the terminal text model). What is kept is bounded
// (src/capture/kept-output.ts), so memory should not grow with the log.
// Run: node bench/pipe.mjs [--mb 60] [--runs 3]
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, numericArgs } from './lib.mjs';

const { mb, runs } = numericArgs({ mb: 60, runs: 3 });
const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const dir = mkdtempSync(join(tmpdir(), 'sivtr-pipe-bench-'));

function makeLog(path, colourFirst) {
  const fd = openSync(path, 'w');
  if (colourFirst) writeSync(fd, '\x1b[31mbuild failed\x1b[0m\n');
  const block = 'some line of output 0123456789 the quick brown fox\n'.repeat(20_000);
  let written = 0;
  while (written < mb * 1e6) written += writeSync(fd, block);
  closeSync(fd);
  return path;
}

/** Median wall ms and peak RSS (MB) of `sh -c line`, stdout discarded. */
function measure(line, env) {
  const wall = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const out = join(dir, 'time.txt');
    const start = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', out, 'sh', '-c', line], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    wall.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (r.status !== 0) throw new Error(`${line} exited ${r.status}: ${r.stderr}`);
    rss = Math.max(rss, Number(readFileSync(out, 'utf8').trim().split('\n').at(-1)) / 1024);
  }
  return { ms: median(wall), rss };
}

try {
  const logs = { plain: makeLog(join(dir, 'plain.log'), false), coloured: makeLog(join(dir, 'coloured.log'), true) };
  const envs = {
    default: { ...process.env, SIVTR_DATA_DIR: join(dir, 'data-default') },
    minimal: { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8', SIVTR_DATA_DIR: join(dir, 'data-minimal') },
  };
  console.log(`sivtr pipe of a ${mb} MB log, median of ${runs}, peak RSS of the run`);
  for (const [name, env] of Object.entries(envs)) {
    const node = measure(`"${process.execPath}" -e ''`, env);
    console.log(`\n${name} env — baseline bare node -e '': ${node.ms.toFixed(1)} ms, ${node.rss.toFixed(0)} MB`);
    for (const [kind, log] of Object.entries(logs)) {
      const cat = measure(`cat "${log}" | cat > /dev/null`, env);
      const pipe = measure(`cat "${log}" | "${process.execPath}" "${BIN}" pipe > /dev/null`, env);
      console.log(`  ${kind.padEnd(8)} cat | cat ${cat.ms.toFixed(0)} ms · cat | sivtr pipe ${pipe.ms.toFixed(0)} ms (${(mb / (pipe.ms / 1000)).toFixed(0)} MB/s), ${pipe.rss.toFixed(0)} MB RSS`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
