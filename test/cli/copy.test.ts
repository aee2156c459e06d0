import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  writeLog(join(tmp.path, 'data'), 't1', SAMPLE);
});
afterAll(() => tmp.cleanup());

const copy = (...args: string[]) => runCli(['copy', ...args, '--print'], { env });

describe('copy on terminal records', () => {
  it('copies the newest record as input plus output by default', () => {
    const r = copy();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('me@box:~$ seq 1 10\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n');
  });

  it('selects by recency: out, in, cmd', () => {
    expect(copy('out', '3').stdout).toBe('error: missing target\nmake: *** [all] Error 2\n');
    expect(copy('in', '3').stdout).toBe('me@box:~$ make\n');
    expect(copy('cmd', '4').stdout).toBe('ls\n');
  });

  it('prints a range oldest first: commands one per line, like a script; blocks and outputs a blank line apart', () => {
    expect(copy('cmd', '2..4').stdout).toBe('ls\nmake\ntrue\n');
    expect(copy('cmd', '4..2').stdout).toBe('ls\nmake\ntrue\n');
    expect(copy('in', '2..4').stdout).toBe('me@box:~$ ls\nme@box:~$ make\nme@box:~$ true\n');
    expect(copy('out', '3..4').stdout).toBe('a.txt\nb.txt\n\nerror: missing target\nmake: *** [all] Error 2\n');
  });

  it('has the aliases c, ci, co and cc', () => {
    expect(runCli(['co', '3', '--print'], { env }).stdout).toBe('error: missing target\nmake: *** [all] Error 2\n');
    expect(runCli(['ci', '4', '--print'], { env }).stdout).toBe('me@box:~$ ls\n');
    expect(runCli(['cc', '--print'], { env }).stdout).toBe('seq 1 10\n');
    expect(runCli(['c', '4', '--print'], { env }).stdout).toBe('me@box:~$ ls\na.txt\nb.txt\n');
  });

  it('keeps colours only with --ansi', () => {
    expect(copy('out', '3', '--ansi').stdout).toBe('\x1b[31merror\x1b[0m: missing target\nmake: *** [all] Error 2\n');
    expect(copy('in', '3', '--ansi').stdout).toBe('\x1b[32mme@box\x1b[0m:~$ make\n');
  });

  it('replaces the prompt with --prompt, inserting a space unless it ends in whitespace', () => {
    expect(copy('in', '4', '--prompt', '$').stdout).toBe('$ ls\n');
    expect(copy('4', '--prompt', '> ').stdout).toBe('> ls\na.txt\nb.txt\n');
    expect(copy('in', '4', '--prompt', '').stdout).toBe('ls\n');
  });

  it('filters lines: positive, ranges, lists, negative from the end, out of range ignored', () => {
    expect(copy('out', '--lines', '2').stdout).toBe('2\n');
    expect(copy('out', '--lines', '1:3').stdout).toBe('1\n2\n3\n');
    expect(copy('out', '--lines', '1,3,8:12').stdout).toBe('1\n3\n8\n9\n10\n');
    expect(copy('out', '--lines', '-2:').stdout).toBe('9\n10\n');
    expect(copy('out', '--lines', '-1').stdout).toBe('10\n');
    const none = copy('out', '--lines', '50');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^sivtr: no line matched --lines "50" — /);
  });

  it('keeps regex matches before picking lines, case-insensitive on request', () => {
    expect(copy('out', '--regex', '^1').stdout).toBe('1\n10\n');
    expect(copy('out', '--regex', '^1', '--lines', '-1').stdout).toBe('10\n');
    expect(copy('out', '3', '--regex', 'Error').stdout).toBe('make: *** [all] Error 2\n');
    expect(copy('out', '3', '--regex', 'ERROR').code).toBe(1);
    expect(copy('out', '3', '--regex', 'ERROR', '--ignore-case').stdout).toBe('error: missing target\nmake: *** [all] Error 2\n');
  });

  it('matches the regex on plain text but keeps colours with --ansi', () => {
    expect(copy('out', '3', '--ansi', '--regex', '^error:').stdout).toBe('\x1b[31merror\x1b[0m: missing target\n');
  });

  it('copies an empty output as empty text', () => {
    const r = copy('out', '2');
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it('without a clipboard or terminal, fails pointing at --print, and --print only warns', () => {
    const r = runCli(['copy', 'out', '3'], { env: { ...env, SIVTR_CLIPBOARD: 'osc52' } });
    // No terminal is attached to a spawned test process: OSC 52 cannot be delivered.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: cannot copy: .* — use --print to write to stdout\n$/);
    const printed = runCli(['copy', 'out', '3', '--print'], { env: { ...env, SIVTR_CLIPBOARD: 'osc52' } });
    expect(printed.code).toBe(0);
    expect(printed.stderr).toMatch(/^sivtr: not copied: /);
  });
});

describe('copy errors are one line and no stack trace', () => {
  const cases: [string[], RegExp][] = [
    [['copy', '0'], /^sivtr: invalid selector "0" — /],
    [['copy', '2..x'], /^sivtr: invalid selector "2..x" — /],
    [['copy', 'out', '-1'], /^sivtr: /],
    [['copy', '9'], /^sivtr: only 4 commands recorded — try a smaller selector\n$/],
    [['copy', 'out', '--lines', '1:x'], /^sivtr: invalid line spec "1:x" — /],
    [['copy', 'out', '--regex', '('], /^sivtr: invalid regex "\(": /],
  ];
  for (const [args, pattern] of cases) {
    it(args.join(' '), () => {
      const r = runCli([...args, '--print'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
      expect(r.stdout).toBe('');
    });
  }
});
