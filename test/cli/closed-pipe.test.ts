// A reader that goes away (`| head -3`, a pager quit early) ends every printing command quietly:
// no stack trace, the SIGPIPE status 141, and whatever else the command does still happens.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let logPath: string;
const BIG = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');

beforeAll(() => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_TERMINAL_ID: 't' });
  mkdirSync(join(data, 'terminals'), { recursive: true });
  logPath = join(data, 'terminals', 't.jsonl');
  const records = [JSON.stringify({ prompt: '$ ', command: 'true', output: '' })];
  for (let i = 0; i < 3; i++) records.push(JSON.stringify({ prompt: '$ ', command: `seq ${i}`, output: BIG, exit_code: 0 }));
  writeFileSync(logPath, records.join('\n') + '\n');
  // One capture in history, big enough to outgrow a pipe buffer too.
  expect(runCli(['pipe', '--command', 'seq'], { env, input: BIG + '\n' }).code).toBe(0);
});
afterAll(() => tmp.cleanup());

/**
 * Runs the CLI with a stdout pipe whose reading end is closed before the CLI writes a byte. The
 * end is closed before the CLI even starts: a shell waits on stdin until the close is done, then
 * becomes the CLI. Closing it just after spawning raced a loaded machine's scheduler: a CLI that
 * answers at once (`--version`) could write into the still-open pipe and exit 0.
 */
function withClosedReader(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', 'read go; exec "$@" </dev/null', 'sh', process.execPath, BIN, ...args], {
      env: { ...env, ...extraEnv },
      cwd: tmp.path,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout.once('close', () => child.stdin.end('go\n'));
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a stdout reader that goes away', () => {
  it.each([
    ['copy', ['copy', 'out', '2', '--print']],
    ['show', ['show', 'terminal/t/1']],
    ['import (terminal)', ['import']],
    ['import (file)', ['import', '__LOG__']],
    ['search', ['search', 'line', '--no-index', '--format', 'json']],
    ['sessions', ['sessions', '--global', '--json']],
    ['history', ['history', 'show', '1']],
    ['help', ['--help']],
    ['version', ['--version']],
  ])('ends %s quietly with status 141', async (_name, args) => {
    const r = await withClosedReader(args.map((a) => (a === '__LOG__' ? logPath : a)));
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(r.code).toBe(141);
  });

  it('still copies when the reader of --print went away', async () => {
    const bin = join(tmp.path, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const sink = join(tmp.path, 'clipboard.txt');
    writeFileSync(join(bin, 'xsel'), `#!/bin/sh\ncat > '${sink}'\n`);
    chmodSync(join(bin, 'xsel'), 0o755);
    const r = await withClosedReader(['copy', 'out', '2', '--print'], { SIVTR_CLIPBOARD: undefined, DISPLAY: ':99', PATH: `${bin}:${env.PATH}` });
    expect(r).toEqual({ code: 141, stderr: 'copied 20000 lines from #3 seq 1\n' });
    expect(readFileSync(sink, 'utf8')).toBe(BIG);
  });

  it('`copy out 2 --print | head -3` shows three lines and no trace', () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" copy out 2 --print | head -3`], { env, cwd: tmp.path, encoding: 'utf8' });
    expect(r.stdout.split('\n').slice(0, 3)).toEqual(['line 0', 'line 1', 'line 2']);
    expect(r.stderr).toBe('');
  });
});
