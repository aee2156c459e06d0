// `sivtr projects` over real git repositories made here: a worktree, a subdirectory, a second
// clone of one origin (HTTPS with credentials vs SSH), a fork with another origin, same-named
// unrelated folders, a repository without origin, and a moved directory merged by a map file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRemote, originUrl } from '../../src/agents/workspace.js';
import { ProjectResolver, weeklyActivity, weekOf } from '../../src/memory/projects.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeClaudeSession, writeCodexSession } from '../helpers/sessions.js';
import { writeLog } from '../helpers/terminal-log.js';

const git = (cwd: string, ...args: string[]): void => {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
};

function repo(dir: string, origin?: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  if (origin) git(dir, 'remote', 'add', 'origin', origin);
}

type ProjectJson = { name: string; root: string | null; origin: string | null; sessions: number; agents: Record<string, number>; dirs: string[] };
type Paged<T> = { items: T[]; total: number; page: number; limit: number; hasMore: boolean; nextPage?: number };

describe('sivtr projects', () => {
  let home: string;
  let w: string;
  let cleanup: () => void;
  const cli = (args: string[]) => runCli(args, { env: cleanEnv(home, { SIVTR_DATA_DIR: join(home, 'data') }) });
  const projects = (args: string[] = []): Paged<ProjectJson> => {
    const r = cli(['projects', '--json', '--limit', '50', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Paged<ProjectJson>;
  };
  let n = 0;
  const uuid = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const claude = (cwd: string, start = '2026-11-30T10:00:00.000Z'): void => void writeClaudeSession(home, { id: uuid(), cwd, start, turns: [{ prompt: 'hi', reply: 'hello' }] });
  const codex = (cwd: string, at = '2026-11-30T11:00:00.000Z'): void => void writeCodexSession(home, { id: `0199b0d4-0000-7c3d-9f00-${String(++n).padStart(12, '0')}`, cwd, at });

  beforeAll(() => {
    ({ path: home, cleanup } = tempDir());
    w = join(home, 'w');
    repo(join(w, 'app'), 'git@github.com:acme/app.git');
    mkdirSync(join(w, 'app', 'src'));
    git(join(w, 'app'), 'commit', '-q', '--allow-empty', '-m', 'init');
    git(join(w, 'app'), 'worktree', 'add', '-q', join(w, 'app-wt'));
    repo(join(w, 'clone2', 'app'), 'https://ana:s3cr3t-token@GitHub.com/acme/app');
    repo(join(w, 'fork', 'app'), 'git@github.com:someone/app.git');
    mkdirSync(join(w, 'a', 'tools'), { recursive: true });
    mkdirSync(join(w, 'b', 'tools'), { recursive: true });
    repo(join(w, 'local'));
    mkdirSync(join(w, 'local', 'sub'));
    mkdirSync(join(w, 'site'));
    claude(join(w, 'app'));
    claude(join(w, 'app', 'src'));
    claude(join(w, 'app-wt'));
    codex(join(w, 'clone2', 'app'));
    codex(join(w, 'fork', 'app'));
    codex(join(w, 'a', 'tools'));
    codex(join(w, 'b', 'tools'));
    claude(join(w, 'local'));
    codex(join(w, 'local', 'sub'));
    claude(join(w, 'old-site')); // moved away: the directory no longer exists
    claude(join(w, 'site'));
    // one terminal session that worked in two projects
    writeLog(join(home, 'data'), 'term1', [
      { prompt: '$ ', command: 'make', output: '', cwd: join(w, 'app', 'src'), ended_at: '2026-11-30T12:00:00Z', exit_code: 0 },
      { prompt: '$ ', command: 'ls', output: '', cwd: join(w, 'a', 'tools'), ended_at: '2026-11-30T12:05:00Z', exit_code: 0 },
      { prompt: '$ ', command: 'ls', output: '', cwd: join(w, 'a', 'tools'), ended_at: '2026-11-30T12:06:00Z', exit_code: 0 },
    ]);
  });
  afterAll(() => cleanup());

  it('merges a repository, its subdirectories, its worktrees and another clone of its origin', () => {
    const all = projects().items;
    const acme = all.filter((p) => p.origin === 'github.com/acme/app');
    expect(acme).toHaveLength(1);
    expect(acme[0]).toMatchObject({ name: 'app', root: join(w, 'app'), sessions: 5, agents: { claude: 3, codex: 1, terminal: 1 } });
    expect([...acme[0]!.dirs].sort()).toEqual([join(w, 'app'), join(w, 'app', 'src'), join(w, 'app-wt'), join(w, 'clone2', 'app')].sort());
    const local = all.find((p) => p.root === join(w, 'local'))!;
    expect(local).toMatchObject({ name: 'local', origin: null, sessions: 2, agents: { claude: 1, codex: 1 } });
  });

  it('keeps a fork with another origin and same-named unrelated folders apart', () => {
    const all = projects().items;
    expect(all.filter((p) => p.name === 'app').map((p) => p.origin).sort()).toEqual(['github.com/acme/app', 'github.com/someone/app']);
    expect(all.filter((p) => p.name === 'tools').map((p) => p.root).sort()).toEqual([join(w, 'a', 'tools'), join(w, 'b', 'tools')]);
    expect(all.filter((p) => p.name === 'site' || p.name === 'old-site')).toHaveLength(2);
  });

  it('never prints the credentials of an origin URL', () => {
    const json = cli(['projects', '--json']);
    const text = cli(['projects', '--limit', '50']);
    for (const out of [json.stdout, text.stdout, json.stderr, text.stderr]) {
      expect(out).not.toContain('s3cr3t');
      expect(out).not.toContain('ana:');
    }
    expect(text.stdout).toMatch(/^PROJECT\s+SESSIONS\s+AGENTS\s+LAST ACTIVITY\s+WHERE$/m);
    expect(text.stdout).toMatch(/^app\s+5\s+claude 3, codex 1, terminal 1\s+.*github\.com\/acme\/app$/m);
  });

  it('merges a moved directory through the project map', () => {
    const map = join(home, 'map.json');
    writeFileSync(map, JSON.stringify({ [join(w, 'old-site')]: join(w, 'site'), [join(w, 'a', 'tools')]: 'toolbox', [join(w, 'b', 'tools')]: 'toolbox' }));
    const all = projects(['--project-map', map]).items;
    expect(all.filter((p) => p.name === 'site')).toEqual([expect.objectContaining({ root: join(w, 'site'), sessions: 2 })]);
    expect(all.filter((p) => p.name === 'old-site')).toEqual([]);
    expect(all.filter((p) => p.name === 'toolbox')).toEqual([expect.objectContaining({ sessions: 3, agents: { codex: 2, terminal: 1 } })]);
    const bad = cli(['projects', '--project-map', join(home, 'nope.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('filters by provider and pages in the shared shape', () => {
    const codexOnly = projects(['--provider', 'codex']);
    expect(codexOnly.items.every((p) => Object.keys(p.agents).join() === 'codex')).toBe(true);
    expect(codexOnly.total).toBe(5);
    const terminal = projects(['--provider', 'terminal']).items;
    expect(terminal.map((p) => [p.root, p.sessions])).toEqual([[join(w, 'a', 'tools'), 1], [join(w, 'app'), 1]]);
    const r = cli(['projects', '--json', '--limit', '2', '--page', '2']);
    const page2 = JSON.parse(r.stdout) as Paged<ProjectJson>;
    expect(page2).toMatchObject({ total: 7, page: 2, limit: 2, hasMore: true, nextPage: 3 });
    expect(page2.items).toHaveLength(2);
    const last = JSON.parse(cli(['projects', '--json', '--limit', '3', '--page', '3']).stdout) as Paged<ProjectJson>;
    expect(last).toMatchObject({ total: 7, page: 3, hasMore: false });
    expect(last).not.toHaveProperty('nextPage');
    expect(last.items).toHaveLength(1);
    expect(cli(['projects', '--provider', 'nosuch']).code).toBe(2);
    expect(cli(['projects', '--page', '0']).code).toBe(2);
  });
});

describe('sivtr projects --weekly', () => {
  let home: string;
  let cleanup: () => void;
  const cli = (args: string[]) => runCli(args, { env: cleanEnv(home, { TZ: 'UTC' }) });
  beforeAll(() => {
    ({ path: home, cleanup } = tempDir());
    mkdirSync(join(home, 'p1'));
    mkdirSync(join(home, 'p2'));
    writeCodexSession(home, { id: '0199b0d4-0000-7c3d-9f00-000000000001', cwd: join(home, 'p1'), at: '2026-11-02T10:00:00.000Z' });
    writeCodexSession(home, { id: '0199b0d4-0000-7c3d-9f00-000000000002', cwd: join(home, 'p2'), at: '2026-11-16T10:00:00.000Z' });
    // Sunday 23:30 in UTC, Monday 00:30 in Berlin: the week depends on the time zone
    writeClaudeSession(home, { id: '00000000-0000-4000-8000-00000000000a', cwd: join(home, 'p1'), start: '2026-11-29T23:26:00.000Z', turns: [{ prompt: 'hi', reply: 'ok' }] });
  });
  afterAll(() => cleanup());

  type WeekJson = { week: string; projects: { active: number; new: number; cumulative: number }; sessions: { active: number; new: number; cumulative: number }; agents: Record<string, { sessions: { active: number } }> };

  it('counts active, new and cumulative projects and sessions per week, empty weeks included', () => {
    const r = cli(['projects', '--weekly', '--timezone', 'UTC', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Paged<WeekJson> & { timeZone: string; undated: { sessions: number } };
    expect(out.timeZone).toBe('UTC');
    expect(out.undated.sessions).toBe(0);
    expect(out.items.map((x) => x.week)).toEqual(['2026-11-23', '2026-11-16', '2026-11-09', '2026-11-02']);
    const byWeek = Object.fromEntries(out.items.map((x) => [x.week, x]));
    expect(byWeek['2026-11-09']).toMatchObject({ projects: { active: 0, new: 0, cumulative: 1 }, sessions: { active: 0, new: 0, cumulative: 1 } });
    expect(byWeek['2026-11-16']).toMatchObject({ projects: { active: 1, new: 1, cumulative: 2 }, sessions: { active: 1, new: 1, cumulative: 2 } });
    expect(byWeek['2026-11-23']).toMatchObject({ projects: { active: 1, new: 0, cumulative: 2 }, sessions: { active: 1, new: 1, cumulative: 3 } });
    expect(byWeek['2026-11-23']!.agents.claude!.sessions.active).toBe(1);
    expect(byWeek['2026-11-23']!.agents.codex!.sessions.active).toBe(0);
  });

  it('places weeks in the chosen time zone', () => {
    const out = JSON.parse(cli(['projects', '--weekly', '--timezone', 'Europe/Berlin', '--json']).stdout) as Paged<WeekJson>;
    expect(out.items[0]!.week).toBe('2026-11-30');
    expect(out.items.map((x) => x.week)).toHaveLength(5);
    const bad = cli(['projects', '--weekly', '--timezone', 'Mars/Olympus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('prints a table, newest week first', () => {
    const r = cli(['projects', '--weekly', '--timezone', 'UTC']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('weeks from Monday, UTC; a/n/c = active, new, cumulative');
    expect(lines[1]).toMatch(/^WEEK\s+PROJECTS a\/n\/c\s+SESSIONS a\/n\/c\s+CLAUDE\s+CODEX$/);
    expect(lines[2]).toMatch(/^2026-11-23\s+1\/0\/2\s+1\/1\/3\s+1\s+-$/);
    expect(lines[4]).toMatch(/^2026-11-09\s+0\/0\/1\s+0\/0\/1\s+-\s+-$/);
  });
});

describe('project identity, as functions', () => {
  it('reads one origin name from SSH, HTTPS, ssh:// and local forms, credentials dropped', () => {
    expect(normalizeRemote('git@github.com:acme/app.git')).toBe('github.com/acme/app');
    expect(normalizeRemote('https://ana:tok@GitHub.com/acme/app/')).toBe('github.com/acme/app');
    expect(normalizeRemote('ssh://git@github.com:22/acme/app.git')).toBe('github.com/acme/app');
    expect(normalizeRemote('file:///srv/git/app.git')).toBe('file:/srv/git/app');
    expect(normalizeRemote('/srv/git/app.git')).toBe('file:/srv/git/app');
    expect(originUrl('[core]\n\tbare = false\n[remote "upstream"]\n\turl = x\n[remote "origin"]\n\turl = git@h:o/r.git\n\tfetch = +refs/heads/*\n')).toBe('git@h:o/r.git');
  });

  it('counts sessions without a date apart', () => {
    const w = weeklyActivity([{ source: 'codex', id: 'a', cwd: '/x' }, { source: 'codex', id: 'b', cwd: '/x', at: '2026-11-30T10:00:00Z' }], new ProjectResolver(), 'UTC');
    expect(w.undated).toEqual({ sessions: 1, bySource: { codex: 1 } });
    expect(w.weeks).toHaveLength(1);
    expect(weekOf('2026-12-06T23:59:00Z', 'UTC')).toBe('2026-11-30');
    expect(weekOf('2026-12-06T23:59:00Z', 'Asia/Tokyo')).toBe('2026-12-07');
  });
});
