// Workspace scope, the same for every command that picks sessions: the workspace of this
// directory by default, of another with --cwd DIR, a subtree with --scope PATH, everything
// with --global; a directory that does not exist is a usage error, never an empty answer.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeClaudeSession } from '../helpers/sessions.js';

describe('--cwd, --scope and --global', () => {
  let home: string;
  let w: string;
  let cleanup: () => void;
  const cli = (args: string[], cwd?: string) => runCli(args, { env: cleanEnv(home), cwd });
  const ids = (args: string[], cwd?: string): string[] => {
    const r = cli(['sessions', 'claude', '--json', ...args], cwd);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id.slice(-2)).sort();
  };
  const session = (id: string, cwd: string, start: string, prompt: string): void =>
    void writeClaudeSession(home, { id: `00000000-0000-4000-8000-0000000000${id}`, cwd, start, turns: [{ prompt, reply: `reply from ${prompt}` }] });

  beforeAll(() => {
    ({ path: home, cleanup } = tempDir());
    w = join(home, 'w');
    mkdirSync(join(w, 'app', 'sub'), { recursive: true });
    mkdirSync(join(w, 'other'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(w, 'app'), stdio: 'ignore' });
    session('a1', join(w, 'app'), '2026-11-30T10:00:00.000Z', 'zebra in app');
    session('s1', join(w, 'app', 'sub'), '2026-11-30T11:00:00.000Z', 'zebra in sub');
    session('o1', join(w, 'other'), '2026-11-30T09:00:00.000Z', 'zebra in other');
  });
  afterAll(() => cleanup());

  it('sessions: this workspace, another one, a subtree, or all', () => {
    expect(ids([], join(w, 'app'))).toEqual(['a1', 's1']);
    expect(ids(['--cwd', join(w, 'other')], join(w, 'app'))).toEqual(['o1']);
    expect(ids(['--cwd', 'w/app/sub'], home)).toEqual(['a1', 's1']); // the workspace of a subdirectory is its repository
    expect(ids(['--scope', join(w, 'app', 'sub')], home)).toEqual(['s1']);
    expect(ids(['--scope', w], home)).toEqual(['a1', 'o1', 's1']);
    expect(ids(['--global'], join(w, 'other'))).toEqual(['a1', 'o1', 's1']);
  });

  it('show and copy open the newest session of the chosen scope', () => {
    const shown = cli(['show', 'claude/1/1', '--cwd', join(w, 'other')], join(w, 'app'));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('zebra in other');
    const scoped = cli(['show', 'claude/1/1', '--scope', join(w, 'app')], join(w, 'other'));
    expect(scoped.stdout).toContain('zebra in sub');
    const copied = cli(['copy', 'claude', 'out', '--print', '--cwd', join(w, 'other')], join(w, 'app'));
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toContain('reply from zebra in other');
  });

  it('an empty subtree finds nothing rather than falling back to other sessions', () => {
    mkdirSync(join(w, 'empty'), { recursive: true });
    const r = cli(['show', 'claude/1/1', '--scope', join(w, 'empty')], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: only 0 claude sessions in this workspace, not 1/);
    expect(r.stdout).toBe('');
  });

  it('search narrows to the scope when asked, and reads everything by default', () => {
    const refs = (args: string[]): string[] => {
      const r = cli(['search', 'claude', 'zebra', '--no-index', '--format', 'json', '--limit', '20', ...args], home);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { hits: { cwd: string | null }[] }).hits.map((h) => h.cwd!.slice(w.length + 1)).sort();
    };
    expect(refs([])).toEqual(['app', 'app/sub', 'other']);
    expect(refs(['--cwd', join(w, 'app')])).toEqual(['app', 'app/sub']);
    expect(refs(['--scope', join(w, 'app', 'sub')])).toEqual(['app/sub']);
    expect(refs(['--cwd', join(w, 'other'), '--global'])).toEqual(['app', 'app/sub', 'other']);
  });

  it('files --workspace follows the same scope', () => {
    const r = cli(['files', '--json', '--scope', join(w, 'other')], home);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ scope: expect.stringContaining('other'), files: 0 });
  });

  it.each([
    ['sessions'],
    ['show', 'claude/1/1'],
    ['copy', 'claude', 'out', '--print'],
    ['search', 'zebra'],
    ['files'],
  ])('%s: a directory that does not exist is one line and exit 2', (...argv) => {
    for (const flag of ['--cwd', '--scope']) {
      const r = cli([...argv, flag, join(w, 'gone')], home);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([`sivtr: ${flag} ${join(w, 'gone')}: no such directory — give an existing directory, or --global for every workspace`]);
    }
  });
});
