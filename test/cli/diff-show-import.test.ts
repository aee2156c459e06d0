import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let logPath: string;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data'), COLUMNS: '60' });
  logPath = writeLog(join(tmp.path, 'data'), 'term-1234', [
    ...SAMPLE,
    { prompt: '$ ', command: '   ', output: '' }, // not a record, keeps position 5
    { prompt: '$ ', command: 'seq 1 10 | sed s/5/five/', output: '1\n2\n3\n4\nfive\n6\n7\n8\n9\n10', exit_code: 0 },
  ]);
});
afterAll(() => tmp.cleanup());

describe('diff', () => {
  const unified = [
    '--- terminal/term-123/4 (2 commands ago) seq 1 10',
    '+++ terminal/term-123/6 (last command) seq 1 10 | sed s/5/five/',
    '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8', '',
  ].join('\n');

  it('prints a unified diff, older side first, with headers giving each ref and how many commands ago', () => {
    const r = runCli(['diff', '1', '2'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(unified);
  });

  it('a + line is what is newer, whatever order the sides are typed in', () => {
    expect(runCli(['diff', '2', '1'], { env }).stdout).toBe(unified);
    expect(runCli(['diff', 'terminal/current/6', 'terminal/current/4'], { env }).stdout).toBe(unified);
    expect(runCli(['diff', 'terminal/current/6', '2'], { env }).stdout).toBe(unified);
  });

  it('a file that appeared shows as added; records of two terminals are ordered by when they ended', () => {
    const dir = tempDir();
    try {
      const data = join(dir.path, 'data');
      const late = writeLog(data, 'late', [{ command: 'ls', output: 'a.txt\nnew.txt', ended_at: '2026-11-29T10:05:00Z' }]);
      writeLog(data, 'early', [{ command: 'ls', output: 'a.txt', ended_at: '2026-11-29T10:00:00Z' }]);
      const e = cleanEnv(dir.path, { SIVTR_DATA_DIR: data, SIVTR_SESSION_LOG: late });
      const expected = ['--- terminal/early/1 ls', '+++ terminal/late/1 (last command) ls', '@@ -1,1 +1,2 @@', ' a.txt', '+new.txt', ''].join('\n');
      expect(runCli(['diff', '1', 'terminal/early/1'], { env: e }).stdout).toBe(expected);
      expect(runCli(['diff', 'terminal/early/1', 'terminal/late/1'], { env: e }).stdout).toBe(expected);
    } finally {
      dir.cleanup();
    }
  });

  it('says no differences for identical sides and exits 0 even with --exit-code', () => {
    const r = runCli(['diff', '1', 'terminal/current/6', '--exit-code'], { env });
    expect(r).toMatchObject({ code: 0, stdout: 'no differences\n' });
  });

  it('--exit-code exits 1 when the sides differ', () => {
    expect(runCli(['diff', '1', '2', '--exit-code'], { env }).code).toBe(1);
  });

  it('compares commands, inputs or blocks on request', () => {
    expect(runCli(['diff', '1', '2', '--cmd'], { env }).stdout).toContain('-seq 1 10\n+seq 1 10 | sed s/5/five/\n');
    expect(runCli(['diff', '1', '2', '--input'], { env }).stdout).toContain('-me@box:~$ seq 1 10\n+$ seq 1 10 | sed s/5/five/\n');
    expect(runCli(['diff', '1', '2', '--block'], { env }).stdout).toContain('-me@box:~$ seq 1 10\n+$ seq 1 10 | sed s/5/five/\n');
  });

  it('aligns --side-by-side to the terminal width, older on the left', () => {
    const r = runCli(['diff', '1', '2', '--side-by-side'], { env });
    const lines = r.stdout.trimEnd().split('\n');
    const col = Math.floor((60 - 3) / 2);
    expect(lines[0]).toBe(`${'terminal/term-123/4'.padEnd(col)} | terminal/term-123/6`);
    expect(lines[1]).toBe(`${'(2 commands ago) seq 1 10'.padEnd(col)} | (last command) seq 1 10 | s…`);
    expect(lines).toContain(`${'5'.padEnd(col)} | five`);
    expect(lines).toContain(`${'4'.padEnd(col)}   4`);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
  });

  it('colours only when asked or on a TTY', () => {
    expect(runCli(['diff', '1', '2'], { env }).stdout).not.toContain('\x1b[');
    expect(runCli(['diff', '1', '2', '--color', 'always'], { env }).stdout).toContain('\x1b[32m+five\x1b[0m');
  });

  it('rejects ranges and missing sides without a stack trace', () => {
    const r = runCli(['diff', '1..2', '3'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: diff takes one record per side, not the range "1\.\.2" — /);
    expect(runCli(['diff', '1'], { env }).code).toBe(2);
  });
});

describe('show', () => {
  it('prints a terminal record as its rendered block', () => {
    expect(runCli(['show', 'terminal/current/2'], { env }).stdout).toBe('\x1b[32mme@box\x1b[0m:~$ make\nerror: missing target\nmake: *** [all] Error 2\n'.replace(/\x1b\[[0-9;]*m/g, ''));
  });

  it('keeps absolute indices and skips non-records', () => {
    expect(runCli(['show', 'terminal/current/6', '--json'], { env }).stdout).toContain('"index": 6');
    const r = runCli(['show', 'terminal/current/5'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: terminal\/term-123\w* has no record 5 /);
  });

  it('resolves a session by id prefix and shows parts p1–p3', () => {
    expect(runCli(['show', 'terminal/term/2/p2'], { env }).stdout).toBe('make\n');
    expect(runCli(['show', 'terminal/term-1234/2/p3', '--ansi'], { env }).stdout).toBe('\x1b[31merror\x1b[0m: missing target\nmake: *** [all] Error 2\n');
    expect(runCli(['show', 'terminal/current/2/p1'], { env }).stdout).toBe('me@box:~$ \n');
  });

  it('takes index lists like 1-2,4', () => {
    const r = runCli(['show', 'terminal/current/1-2,4', '--json'], { env });
    expect(JSON.parse(r.stdout).map((u: { index: number }) => u.index)).toEqual([1, 2, 4]);
  });

  it('prints the JSON shape of docs/cli.md, naming the session by its full id', () => {
    const j = JSON.parse(runCli(['show', 'terminal/current/2', '--json'], { env }).stdout);
    expect(j).toEqual({
      ref: 'terminal/term-1234/2',
      source: 'terminal',
      session: 'term-1234',
      index: 2,
      prompt: 'me@box:~$ ',
      command: 'make',
      output: 'error: missing target\nmake: *** [all] Error 2',
      cwd: '/home/me/proj',
      exit_code: 2,
    });
    expect(runCli(['show', j.ref], { env }).code).toBe(0);
  });

  it('explains bad refs in one line', () => {
    const cases: [string, RegExp][] = [
      ['terminal/x/9', /^sivtr: no terminal session "x" — /],
      ['terminal/current/9', /^sivtr: terminal\/term-123 has no record 9 \(records run 1–6\) — /],
      ['terminal/current/2/p4', /^sivtr: terminal\/term-123\/2 has no part p4 \(it has p1–p3\) — /],
      ['terminal', /^sivtr: invalid ref "terminal": /],
    ];
    for (const [ref, pattern] of cases) {
      const r = runCli(['show', ref], { env });
      expect(r.code, ref).toBe(1);
      expect(r.stderr, ref).toMatch(pattern);
      expect(r.stderr.trim().split('\n'), ref).toHaveLength(1);
    }
  });
});

describe('import', () => {
  it('prints the current terminal log in the block model', () => {
    const r = runCli(['import'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# terminal/term-123 — 5 records');
    expect(r.stdout).toContain('══ terminal/term-123/6 ══\n$ seq 1 10 | sed s/5/five/\n1\n');
  });

  it('prints JSON with every record', () => {
    const j = JSON.parse(runCli(['import', '--json'], { env }).stdout);
    expect(j.source).toBe('terminal');
    expect(j.session.id).toBe('term-1234');
    expect(j.units.map((u: { index: number }) => u.index)).toEqual([1, 2, 3, 4, 6]);
  });

  it('detects a SessionEntry log given by path', () => {
    const j = JSON.parse(runCli(['import', logPath, '--json'], { env }).stdout);
    expect(j.units[0].command).toBe('ls');
  });

  it('refuses an unknown file format with a fix', () => {
    const p = join(tmp.path, 'notes.txt');
    writeFileSync(p, 'just some notes\n');
    const r = runCli(['import', p], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: .*notes\.txt is not a format sivtr knows — /);
  });
});

describe('bad input never prints a stack trace', () => {
  it('unknown command is a usage error (exit 2)', () => {
    const r = runCli(['frobnicate'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: .*frobnicate/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('unknown flag is a usage error', () => {
    const r = runCli(['copy', '--frob'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: unknown option --frob for `sivtr copy` — usage: sivtr copy \[what..\] \(see `sivtr copy --help`\)\n$/);
  });

  it('a missing data dir says nothing is recorded', () => {
    const r = runCli(['copy', '--print'], { env: { ...env, SIVTR_DATA_DIR: join(tmp.path, 'nope') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: nothing recorded yet in .*nope\/terminals — /);
  });

  it('an unreadable log says so', () => {
    // A directory in place of the log: unreadable even for root, unlike a chmod 000 file.
    const r = runCli(['copy', '--print'], { env: { ...env, SIVTR_SESSION_LOG: tmp.path } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: cannot read .* \(EISDIR\) — check the file permissions\n$/);
  });

  it('an explicit log that does not exist says where it looked', () => {
    const r = runCli(['copy', '--print'], { env: { ...env, SIVTR_SESSION_LOG: join(tmp.path, 'gone.jsonl') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: no terminal log at .*gone\.jsonl — /);
  });

  it('--help and --version work', () => {
    const help = runCli(['--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^  copy /m);
    expect(runCli(['--version'], { env }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
