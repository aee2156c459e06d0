// The output kernel writes to stdout's descriptor itself (no stream is made for a one-shot
// command): the whole output must arrive however the descriptor was set up, and colour must still
// follow whether it is a terminal.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
const BIG = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a long output`).join('\n');

beforeAll(() => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_TERMINAL_ID: 't' });
  writeLog(data, 't', [
    { prompt: '$ ', command: 'seq', output: BIG, exit_code: 0 },
    { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Connection refused', exit_code: 7 },
  ]);
});
afterAll(() => tmp.cleanup());

describe('stdout written by the output kernel', () => {
  it('arrives whole through a pipe left non-blocking by another program, read late', async () => {
    // Programs that share a pipe share its O_NONBLOCK flag; perl sets it (node has no fcntl) and
    // then runs sivtr on that pipe. This test reads nothing for a while, so the pipe fills up and
    // writing must wait instead of failing with EAGAIN.
    const nonBlocking = 'use Fcntl; fcntl(STDOUT, F_SETFL, fcntl(STDOUT, F_GETFL, 0) | O_NONBLOCK) or die; exec { $ARGV[0] } @ARGV or die;';
    const child = spawn('perl', ['-e', nonBlocking, process.execPath, BIN, 'show', 'terminal/t/1/p3', '--max-chars', '0'], { env, cwd: tmp.path, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise((done) => setTimeout(done, 500));
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stdout.resume();
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(BIG + '\n');
  });

  it('is coloured at a terminal and plain in a pipe', async () => {
    const pty = await import('node-pty');
    const child = pty.spawn(process.execPath, [BIN, 'search', 'refused'], { env: env as Record<string, string>, cwd: tmp.path, cols: 200, rows: 50 });
    let atTerminal = '';
    child.onData((d) => (atTerminal += d));
    const code = await new Promise<number>((done) => child.onExit((e) => done(e.exitCode)));
    expect(code).toBe(0);
    expect(atTerminal).toContain('\x1b[');
    const piped = runCli(['search', 'refused'], { env });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('Connection refused');
    expect(piped.stdout).not.toContain('\x1b[');
    expect(runCli(['search', 'refused', '--color', 'always'], { env }).stdout).toContain('\x1b[');
  });
});
