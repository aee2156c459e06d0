// Throughput of `sivtr shell` against its peers: `cat` of a 50 MB file (ASCII lines with colour)
// inside the recorder, `script -q`, `asciinema rec`, a bare node-pty reader (a passthrough proxy
// with no recorder) and `sivtr shell --passthrough`. Every contender runs inside the same outer PTY
// that discards what it reads; times are medians of RUNS runs with startup subtracted (the same
// contender on an empty file). Each contender runs in the default environment (this process's,
// NODE_EXTRA_CA_CERTS and all) and in a minimal one (env -i PATH HOME LANG, plus TERM).
// Wall time needs a quiet machine; the CPU time of each contender's process tree (time(1)) is
// printed beside it and holds up better on a shared one.
// Also: the recorder's RSS while a command prints 1 GB (sampled from /proc every 50 ms).
// Run: node bench/capture-throughput.mjs [--rss-only|--no-rss]   (RUNS=5 by default)
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from 'node-pty';
import { median } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const RUNS = Number(process.env.RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'sivtr-tput-'));
const big = join(dir, 'big.txt');
const empty = join(dir, 'empty.txt');
const mode = process.argv[2];
const have = (p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;

function makeFile(path, bytes) {
  const line = 'line 0000000 the quick brown fox jumps over the lazy dog, \x1b[32mcoloured\x1b[0m and plain text\n';
  const block = line.repeat(Math.ceil((1 << 20) / line.length));
  const fd = openSync(path, 'w');
  let written = 0;
  while (written < bytes) written += writeSync(fd, block);
  closeSync(fd);
  return written;
}

const ENVS = {
  default: (home) => ({ ...process.env, HOME: home, TERM: 'xterm-256color', INPUTRC: '/dev/null', SIVTR_DATA_DIR: join(home, 'data'), ASCIINEMA_CONFIG_HOME: join(home, 'asciinema') }),
  minimal: (home) => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'xterm-256color', ...(process.env.SIVTR_RECORDER_INLINE ? { SIVTR_RECORDER_INLINE: '1' } : {}) }),
};

/** CPU seconds (user + system) of a finished contender and everything it waited for, from time(1). */
const TIME = '/usr/bin/time';
let timed = 0;
function timeArgs() {
  const out = join(dir, `time-${timed++}.txt`);
  return { out, prefix: ['-f', '%U %S', '-o', out] };
}
const cpuOf = (out) => readFileSync(out, 'utf8').trim().split('\n').at(-1).split(' ').reduce((a, b) => a + Number(b) * 1000, 0);

/** Runs file/args on an outer PTY, discarding output; resolves with wall and CPU ms until exit. */
function whole(file, args, home, env) {
  const t = timeArgs();
  return new Promise((res) => {
    const start = process.hrtime.bigint();
    const p = pty.spawn(TIME, [...t.prefix, file, ...args], { cols: 120, rows: 40, cwd: home, env, encoding: null });
    p.onData(() => {});
    p.onExit(() => res({ ms: Number(process.hrtime.bigint() - start) / 1e6, cpu: cpuOf(t.out) }));
  });
}

const bareReader = join(dir, 'bare-reader.mjs');
writeFileSync(
  bareReader,
  `import pty from ${JSON.stringify(join(ROOT, 'node_modules', 'node-pty', 'lib', 'index.js'))};
const child = (pty.spawn ?? pty.default.spawn)('cat', [process.argv[2]], { cols: 120, rows: 40, env: process.env, encoding: null });
let paused = false;
child.onData((b) => { if (!process.stdout.write(b) && !paused) { paused = true; child.pause(); process.stdout.once('drain', () => { paused = false; child.resume(); }); } });
child.onExit(({ exitCode }) => { process.exitCode = exitCode; });
`,
);

/** `sivtr shell bash` on the outer PTY: time from Enter to the next prompt. */
async function inShell(path, home, env, passthrough) {
  writeFileSync(join(home, '.bashrc'), "PS1='$ '\nHISTFILE=/dev/null\n");
  const args = [BIN, 'shell', 'bash', ...(passthrough ? ['--passthrough'] : [])];
  const t = timeArgs();
  const p = pty.spawn(TIME, [...t.prefix, process.execPath, ...args], { cols: 120, rows: 40, cwd: home, env, encoding: null });
  let tail = '';
  let count = 0;
  let waiter;
  const marker = passthrough ? '$ ' : '133;B;sivtr=';
  p.onData((b) => {
    const s = tail + /** @type {Buffer} */ (/** @type {unknown} */ (b)).toString('latin1');
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
  return { ms, cpu: cpuOf(t.out) };
}

/** Medians of wall and CPU time over RUNS runs. */
async function series(fn) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return { ms: median(runs.map((r) => r.ms)), cpu: median(runs.map((r) => r.cpu)) };
}

/** One contender on the big file minus the same on an empty file (startup), wall and CPU. */
/** @returns {Promise<{ ms: number, cpu: number }>} */
const net = async (run) => {
  const full = await series(() => run(big));
  const start = await series(() => run(empty));
  return { ms: full.ms - start.ms, cpu: full.cpu - start.cpu };
};

if (mode !== '--rss-only') {
  const size = makeFile(big, 50 * 1024 * 1024);
  writeFileSync(empty, '');
  const mb = size / 1024 / 1024;
  const rate = (ms) => `${(mb / (ms / 1000)).toFixed(0).padStart(3)} MB/s (${ms.toFixed(0)} ms)`;
  console.log(`throughput, cat of ${mb.toFixed(0)} MB (median of ${RUNS}, startup subtracted; CPU = user + system of the whole process tree,`);
  console.log(`cat and bash included, which a loaded machine does not distort as it does wall time):`);
  for (const [name, makeEnv] of Object.entries(ENVS)) {
    const home = mkdtempSync(join(dir, `home-${name}-`));
    const env = makeEnv(home);
    const cast = join(home, 'out.cast');
    /** @type {[string, { ms: number, cpu: number }][]} */
    const results = [];
    results.push(['bare node-pty reader', await net((f) => whole(process.execPath, [bareReader, f], home, env))]);
    results.push(['script -q', await net((f) => whole('script', ['-q', '-c', `cat ${f}`, '/dev/null'], home, env))]);
    if (have('asciinema')) results.push(['asciinema rec', await net((f) => whole('asciinema', ['rec', '-q', '--overwrite', '-c', `cat ${f}`, cast], home, env))]);
    results.push(['sivtr shell --passthrough', await net((f) => inShell(f, home, env, true))]);
    results.push(['sivtr shell (recording)', await net((f) => inShell(f, home, env, false))]);
    const script = results.find(([n]) => n === 'script -q')[1];
    console.log(` ${name} environment:`);
    for (const [label, r] of results) {
      console.log(`  ${label.padEnd(26)} ${rate(r.ms)}  = ${(script.ms / r.ms).toFixed(2)}× script -q;  CPU ${r.cpu.toFixed(0).padStart(5)} ms = ${(r.cpu / script.cpu).toFixed(2)}× script -q's`);
    }
  }
}

if (mode !== '--no-rss') {
  // 1 GB through the recorder: RSS of the `sivtr shell` node process, sampled while it runs.
  const home = mkdtempSync(join(dir, 'rss-'));
  writeFileSync(join(home, '.bashrc'), "PS1='$ '\nHISTFILE=/dev/null\n");
  const p = pty.spawn(process.execPath, [BIN, 'shell', 'bash'], { cols: 120, rows: 40, cwd: home, env: { ...ENVS.minimal(home), SIVTR_DATA_DIR: join(home, 'data') }, encoding: null });
  let count = 0;
  let waiter;
  let tail = '';
  p.onData((b) => {
    const s = tail + /** @type {Buffer} */ (/** @type {unknown} */ (b)).toString('latin1');
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
  const logs = join(home, 'data', 'terminals');
  const log = readFileSync(join(logs, readdirSync(logs).find((n) => n.endsWith('.jsonl'))), 'utf8');
  const entry = JSON.parse(log.trim().split('\n').at(-1));
  console.log(`recorder RSS while a command prints 1 GB (${secs.toFixed(1)} s, ${(1024 / secs).toFixed(0)} MB/s): start ${samples[0].toFixed(0)} MB, max ${Math.max(...samples).toFixed(0)} MB, end ${samples.at(-1).toFixed(0)} MB; entry output ${entry.output.length} chars (${/\[… (\d+) chars omitted …\]/.exec(entry.output)?.[1]} omitted)`);
}
rmSync(dir, { recursive: true, force: true });
