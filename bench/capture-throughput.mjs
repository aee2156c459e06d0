// Throughput of `sivtr shell`: `cat` of a 50 MB file inside the recorder vs a bare node-pty reader
// (a passthrough proxy with no recorder) vs `script -q`. Every contender runs inside the same outer
// PTY that discards what it reads; times are medians of 10 runs, startup subtracted (an empty file).
// Also: the recorder's RSS while a command prints 1 GB (sampled from /proc every 50 ms).
// Run: node bench/capture-throughput.mjs [--rss-only|--no-rss]
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from 'node-pty';
import { median } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const RUNS = Number(process.env.RUNS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'sivtr-tput-'));
const big = join(dir, 'big.txt');
const empty = join(dir, 'empty.txt');
const mode = process.argv[2];

function makeFile(path, bytes) {
  const line = 'line 0000000 the quick brown fox jumps over the lazy dog, \x1b[32mcoloured\x1b[0m and plain text\n';
  const block = line.repeat(Math.ceil((1 << 20) / line.length));
  const fd = openSync(path, 'w');
  let written = 0;
  while (written < bytes) written += writeSync(fd, block);
  closeSync(fd);
  return written;
}

const env = (home) => ({ PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8', INPUTRC: '/dev/null', SIVTR_DATA_DIR: join(home, 'data'), ...(process.env.SIVTR_RECORDER_INLINE ? { SIVTR_RECORDER_INLINE: '1' } : {}) });

/** Runs file/args on an outer PTY, discarding output; resolves with ms until exit. */
function whole(file, args, home) {
  return new Promise((res) => {
    const start = process.hrtime.bigint();
    const p = pty.spawn(file, args, { cols: 120, rows: 40, cwd: home, env: env(home), encoding: null });
    p.onData(() => {});
    p.onExit(() => res(Number(process.hrtime.bigint() - start) / 1e6));
  });
}

const bareReader = join(dir, 'bare-reader.mjs');
writeFileSync(
  bareReader,
  `import pty from ${JSON.stringify(join(ROOT, 'node_modules', 'node-pty', 'lib', 'index.js'))};
const p = pty.default ? pty.default.spawn : pty.spawn;
const child = (pty.spawn ?? pty.default.spawn)('cat', [process.argv[2]], { cols: 120, rows: 40, env: process.env, encoding: null });
let paused = false;
child.onData((b) => { if (!process.stdout.write(b) && !paused) { paused = true; child.pause(); process.stdout.once('drain', () => { paused = false; child.resume(); }); } });
child.onExit(({ exitCode }) => { process.exitCode = exitCode; });
`,
);

/** `sivtr shell bash` on the outer PTY: time from Enter to the next prompt marker. */
async function inShell(path, home, passthrough) {
  writeFileSync(join(home, '.bashrc'), "PS1='$ '\nHISTFILE=/dev/null\n");
  const args = [BIN, 'shell', 'bash', ...(passthrough ? ['--passthrough'] : [])];
  const needle = passthrough ? '\x1b]133;B' : ';sivtr=';
  const p = pty.spawn(process.execPath, args, { cols: 120, rows: 40, cwd: home, env: env(home), encoding: null });
  let tail = '';
  let count = 0;
  let waiter;
  const marker = passthrough ? '$ ' : '133;B;sivtr=';
  p.onData((b) => {
    const s = tail + b.toString('latin1');
    for (let i = s.indexOf(marker); i >= 0; i = s.indexOf(marker, i + 1)) count++;
    tail = s.slice(-marker.length + 1);
    if (waiter && count >= waiter.n) waiter.res();
  });
  const until = (n) => new Promise((res) => (count >= n ? res() : (waiter = { n, res })));
  const exited = new Promise((r) => p.onExit(r));
  await until(1);
  const start = process.hrtime.bigint();
  const before = count;
  p.write(`cat ${path}\r`);
  await until(before + 1);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  p.write('exit\r');
  await exited;
  void needle;
  return ms;
}

async function series(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await fn());
  return median(times);
}

if (mode !== '--rss-only') {
  const size = makeFile(big, 50 * 1024 * 1024);
  writeFileSync(empty, '');
  const home = mkdtempSync(join(dir, 'home-'));
  const bare = (await series(() => whole(process.execPath, [bareReader, big], home))) - (await series(() => whole(process.execPath, [bareReader, empty], home)));
  const script = (await series(() => whole('script', ['-q', '-c', `cat ${big}`, '/dev/null'], home))) - (await series(() => whole('script', ['-q', '-c', `cat ${empty}`, '/dev/null'], home)));
  const recorder = (await series(() => inShell(big, home, false))) - (await series(() => inShell(empty, home, false)));
  const passthrough = (await series(() => inShell(big, home, true))) - (await series(() => inShell(empty, home, true)));
  const mb = size / 1024 / 1024;
  const rate = (ms) => `${(mb / (ms / 1000)).toFixed(0)} MB/s (${ms.toFixed(0)} ms)`;
  console.log(`throughput, cat of ${mb.toFixed(0)} MB (median of ${RUNS}, startup subtracted):`);
  console.log(`  bare node-pty reader     ${rate(bare)}`);
  console.log(`  script -q                ${rate(script)}  = ${(bare / script).toFixed(2)}× the bare reader`);
  console.log(`  sivtr shell --passthrough ${rate(passthrough)}  = ${(bare / passthrough).toFixed(2)}× the bare reader`);
  console.log(`  sivtr shell (recording)  ${rate(recorder)}  = ${(bare / recorder).toFixed(2)}× the bare reader`);
}

if (mode !== '--no-rss') {
  // 1 GB through the recorder: RSS of the `sivtr shell` node process, sampled while it runs.
  const home = mkdtempSync(join(dir, 'rss-'));
  writeFileSync(join(home, '.bashrc'), "PS1='$ '\nHISTFILE=/dev/null\n");
  const p = pty.spawn(process.execPath, [BIN, 'shell', 'bash'], { cols: 120, rows: 40, cwd: home, env: env(home), encoding: null });
  let count = 0;
  let waiter;
  let tail = '';
  p.onData((b) => {
    const s = tail + b.toString('latin1');
    for (let i = s.indexOf('133;B;sivtr='); i >= 0; i = s.indexOf('133;B;sivtr=', i + 1)) count++;
    tail = s.slice(-11);
    if (waiter && count >= waiter.n) waiter.res();
  });
  const until = (n) => new Promise((res) => (count >= n ? res() : (waiter = { n, res })));
  await until(1);
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))[1]) / 1024;
  const samples = [rss()];
  const timer = setInterval(() => samples.push(rss()), 50);
  const start = process.hrtime.bigint();
  p.write(`head -c ${1024 ** 3} /dev/zero | tr '\\0' 'x' | fold -w 100\r`);
  await until(2);
  clearInterval(timer);
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  p.write('exit\r');
  await new Promise((r) => p.onExit(r));
  const log = readFileSync(join(home, 'data', 'terminals', (await import('node:fs')).readdirSync(join(home, 'data', 'terminals')).find((n) => n.endsWith('.jsonl'))), 'utf8');
  const entry = JSON.parse(log.trim().split('\n').at(-1));
  console.log(`recorder RSS while a command prints 1 GB (${secs.toFixed(1)} s): start ${samples[0].toFixed(0)} MB, max ${Math.max(...samples).toFixed(0)} MB, end ${samples.at(-1).toFixed(0)} MB; entry output ${entry.output.length} chars (${/\[… (\d+) chars omitted …\]/.exec(entry.output)?.[1]} omitted)`);
}
rmSync(dir, { recursive: true, force: true });
