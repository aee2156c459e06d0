// Captured history (`sivtr run`, `sivtr pipe`) is a source of records like the terminal: copy,
// show, diff and search treat a capture exactly as a recorded command, and the `history`
// command's search and show are `search history` and `show history/N`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: `${tmp.path}/data` });
  expect(runCli(['pipe'], { env, input: 'piped line\n' }).code).toBe(0);
  expect(runCli(['pipe', '--command', 'curl localhost'], { env, input: 'curl: (7) Failed to connect: Connection refused\n' }).code).toBe(0);
  expect(runCli(['pipe', '--command', 'make'], { env, input: 'built 3 targets\n' }).code).toBe(0);
});
afterAll(() => tmp.cleanup());

const cli = (...args: string[]) => runCli(args, { env });

describe('captured history as a source', () => {
  it('is listed by `sessions history`', () => {
    const list = JSON.parse(cli('sessions', 'history', '--json').stdout) as { ref: string; title: string }[];
    expect(list).toHaveLength(3);
    expect(list.at(-1)!.title).toBe('(piped) piped line');
  });

  it('shows a piped capture without an empty input line', () => {
    expect(cli('show', 'history/1').stdout).toBe('piped line\n');
  });

  it('an unknown source still lists the known ones', () => {
    const r = cli('sessions', 'nosuch');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: unknown source "nosuch" — use terminal, history, claude/);
  });
});

describe('copy history', () => {
  it('copies the newest capture as a record: command and output', () => {
    const r = cli('copy', 'history', '--print');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('make\nbuilt 3 targets\n');
  });

  it('counts back through the captures with in, out and cmd', () => {
    expect(cli('copy', 'history', 'out', '--print').stdout).toBe('built 3 targets\n');
    expect(cli('copy', 'history', 'out', '2', '--print').stdout).toBe('curl: (7) Failed to connect: Connection refused\n');
    expect(cli('copy', 'history', 'in', '2', '--print').stdout).toBe('curl localhost\n');
    expect(cli('copy', 'history', 'cmd', '--print').stdout).toBe('make\n');
    expect(cli('copy', 'history', 'out', '3', '--print').stdout).toBe('piped line\n');
  });

  it('says how many captures there are when the selector goes past them', () => {
    const r = cli('copy', 'history', 'out', '9', '--print');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: only 3 /);
  });

  it('says that nothing was captured yet', () => {
    const empty = tempDir();
    try {
      const r = runCli(['copy', 'history', '--print'], { env: cleanEnv(empty.path, { SIVTR_DATA_DIR: `${empty.path}/data` }) });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^sivtr: nothing kept in history yet — /);
    } finally {
      empty.cleanup();
    }
  });
});

describe('one shape and one code path for history records', () => {
  it('`show history/N --json` is one record of source history, the same as `history show N --json`', () => {
    const shown = JSON.parse(cli('show', 'history/2', '--json').stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ ref: 'history/2', source: 'history', session: '2', command: 'curl localhost', output: 'curl: (7) Failed to connect: Connection refused' });
    expect(JSON.parse(cli('history', 'show', '2', '--json').stdout)).toEqual(shown);
    expect(JSON.parse(cli('show', 'history/2/1', '--json').stdout)).toEqual(shown);
    const part = JSON.parse(cli('show', 'history/2/1/p3', '--json').stdout) as Record<string, unknown>;
    expect(part).toMatchObject({ ref: 'history/2/1/p3', source: 'history', kind: 'output' });
    expect(JSON.parse(cli('show', part.ref as string, '--json').stdout)).toEqual(part);
  });

  it('`history search` is `search history`: the same hits, the same output', () => {
    const viaHistory = cli('history', 'search', 'connection', 'refused', '--json');
    const viaSearch = cli('search', 'history', 'connection', 'refused', '--format', 'json');
    expect(viaHistory.code).toBe(0);
    expect(viaHistory.stdout).toBe(viaSearch.stdout);
    const hits = (JSON.parse(viaHistory.stdout) as { hits: { ref: string; source: string }[] }).hits;
    expect(hits.map((h) => [h.ref, h.source])).toEqual([['history/2', 'history']]);
    expect(cli('history', 'search', 'built').stdout).toBe(cli('search', 'history', 'built').stdout);
  });

  it('diffs two captures like two records', () => {
    const r = cli('diff', 'history/2', 'history/3');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('-curl: (7) Failed to connect: Connection refused');
    expect(r.stdout).toContain('+built 3 targets');
  });
});
