// sivtr's own read-only commands stay recorded but do not shift recency: `copy out 2` after a
// `sivtr show` still means the output before the last command the user ran.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';
import { have, ShellSession } from '../capture/harness.js';

describe('recency passes over sivtr\'s own commands', () => {
  let tmp: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    tmp = tempDir();
    env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
    writeLog(join(tmp.path, 'data'), 'own', [
      { prompt: '$ ', command: 'echo one', output: 'one' },
      { prompt: '$ ', command: 'echo two', output: 'two' },
      { prompt: '$ ', command: 'sivtr show terminal/current/1', output: '$ echo one\none' },
      { prompt: '$ ', command: 'NO_COLOR=1 npx sivtr co 2 -p | head -3', output: 'one' },
      { prompt: '$ ', command: 'node ./bin/sivtr.js diff 1 2', output: '--- a\n+++ b' },
    ]);
  });
  afterAll(() => tmp.cleanup());
  const print = (...args: string[]): string => {
    const r = runCli([...args, '--print'], { env });
    expect(r.stderr).toBe('');
    return r.stdout;
  };

  it('copy counts only the commands the user ran', () => {
    expect(print('copy', 'out')).toBe('two\n');
    expect(print('copy', 'out', '2')).toBe('one\n');
    expect(print('copy', 'cmd', '1..2')).toBe('echo one\necho two\n');
    const r = runCli(['copy', 'out', '3', '--print'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("sivtr: only 2 commands recorded besides 3 of sivtr's own — try a smaller selector, or add --include-self\n");
  });

  it('--include-self counts them', () => {
    expect(print('copy', 'cmd', '--include-self')).toBe('node ./bin/sivtr.js diff 1 2\n');
    expect(print('copy', 'out', '3', '--include-self')).toBe('$ echo one\none\n');
  });

  it('refs keep naming every record by its place in the log', () => {
    expect(runCli(['show', 'terminal/current/3/p2'], { env }).stdout).toBe('sivtr show terminal/current/1\n');
    expect(runCli(['show', 'terminal/current/2/p3'], { env }).stdout).toBe('two\n');
  });

  it('diff counts the same way, and its headers say so', () => {
    const r = runCli(['diff', '1', '2'], { env });
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['--- terminal/own/1 (2 commands ago) echo one', '+++ terminal/own/2 (last command) echo two']);
    const self = runCli(['diff', '1', '3', '--include-self', '--cmd'], { env });
    expect(self.stdout.split('\n').slice(0, 2)).toEqual([
      '--- terminal/own/3 (3 commands ago) sivtr show terminal/current/1',
      '+++ terminal/own/5 (last command) node ./bin/sivtr.js diff 1 2',
    ]);
  });
});

/** Waits (on the log, not the clock) until the recorder has written `n` records. */
async function recorded(dir: string, n: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  const count = (): number => {
    if (!existsSync(dir)) return 0;
    return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).reduce((sum, f) => sum + readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).length, 0);
  };
  while (count() < n) {
    if (Date.now() > deadline) throw new Error(`the recorder wrote ${count()} of ${n} records`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!have('bash'))('in a real recorded bash', () => {
  it('`sivtr show` between two commands leaves `copy out 2` meaning the command before the last', async () => {
    const tmp = tempDir('sivtr-own-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', 'bash'] } });
      await s.ready();
      await s.run('echo first');
      await s.run('echo second');
      // The recorder writes from a worker: the commands below read the log, so let it catch up.
      const terminals = join(tmp.path, 'data', 'terminals');
      await recorded(terminals, 2);
      await s.run(`SIVTR_CLIPBOARD=none ${process.execPath} ${BIN} show terminal/current/1`);
      await recorded(terminals, 3);
      await s.run(`SIVTR_CLIPBOARD=none ${process.execPath} ${BIN} copy out 2 --print`);
      await s.exit();
      expect(readdirSync(join(tmp.path, 'data', 'terminals')).filter((n) => n.endsWith('.jsonl'))).toHaveLength(1);
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      // The copy inside the shell already saw past the show, and the outputs were recorded.
      expect(runCli(['show', 'terminal/current/4/p3'], { env }).stdout).toBe('first\n');
      expect(runCli(['show', 'terminal/current/3/p3'], { env }).stdout).toMatch(/\$ echo first\nfirst\n$/);
      expect(runCli(['copy', 'out', '2', '--print'], { env }).stdout).toBe('first\n');
      expect(runCli(['copy', 'out', '--print'], { env }).stdout).toBe('second\n');
    } finally {
      tmp.cleanup();
    }
  }, 30_000);
});
