// The runs stream through the CLI: terminal records (written with the test helper) and the shell
// commands of genuine Claude Code sessions (fixtures/real/claude-2.1.332, whose driver asked for
// `echo hello`), plus one hand-made session whose command failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { copyRealHome } from '../helpers/real-home.js';
import { writeLog } from '../helpers/terminal-log.js';

const RECORDED_CWD = '/tmp/sivtr-conformance/claude/proj'; // where the conformance driver ran Claude Code
const FAILED = 'f00dcafe-0000-4000-8000-000000000001';

type RunJson = { n: number; ref: string; by: string; source: string; session: string; command: string; output: string; exit_code?: number; status: string; cwd?: string; started_at?: string; ended_at?: string; tool?: string; call_ref?: string };

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
/** The project: the genuine sessions' cwd, moved into the temp dir so the CLI can run there. */
let PROJ: string;
const cli = (...args: string[]) => runCli(args, { env, cwd: PROJ });
const runs = (...args: string[]): RunJson[] => {
  const r = cli('runs', '--cwd', PROJ, '--json', ...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as RunJson[];
};

/** A Claude Code session (hand-made, in the format of the genuine ones) whose `npm test` failed. */
function failedSession(home: string): void {
  const dir = join(home, '.claude', 'projects', 'proj');
  mkdirSync(dir, { recursive: true });
  const base = { sessionId: FAILED, cwd: PROJ, isSidechain: false, version: '2.1.332' };
  const lines = [
    { ...base, type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-12-01T09:29:00.000Z', message: { role: 'user', content: 'Run the tests.' } },
    { ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-12-01T09:29:01.000Z', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_f1', name: 'Bash', input: { command: 'npm test', description: 'Run tests' } }], stop_reason: 'tool_use' } },
    { ...base, type: 'user', uuid: 'u2', parentUuid: 'a1', timestamp: '2026-12-01T09:29:04.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_f1', content: 'FAIL test/a.test.ts > adds\nTests 1 failed', is_error: true }] } },
    { ...base, type: 'assistant', uuid: 'a2', parentUuid: 'u2', timestamp: '2026-12-01T09:29:05.000Z', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'One test fails.' }], stop_reason: 'end_turn' } },
  ];
  writeFileSync(join(dir, `${FAILED}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

beforeAll(() => {
  tmp = tempDir('sivtr-runs-');
  const home = join(tmp.path, 'home');
  PROJ = join(tmp.path, 'proj');
  mkdirSync(PROJ);
  copyRealHome('claude-2.1.332', RECORDED_CWD, home, PROJ);
  failedSession(home);
  env = cleanEnv(home);
  writeLog(join(home, '.local', 'state', 'sivtr'), 't1', [
    { prompt: '$ ', command: 'npm test', output: 'Tests 2 failed', cwd: PROJ, ended_at: '2026-12-01T09:28:00.000Z', duration_ms: 1500, exit_code: 1 },
    { prompt: '$ ', command: 'ls /', output: 'bin', cwd: '/elsewhere', ended_at: '2026-12-01T09:29:30.000Z', exit_code: 0 },
    { prompt: '$ ', command: 'echo hello', output: 'hello', cwd: PROJ, ended_at: '2026-12-01T09:30:00.000Z', duration_ms: 3, exit_code: 0 },
    { prompt: '$ ', command: 'sivtr show claude/3e5c5f9d/1', output: '…', cwd: PROJ, ended_at: '2026-12-01T09:31:00.000Z', exit_code: 0 },
  ]);
});
afterAll(() => tmp.cleanup());

describe('sivtr runs', () => {
  it('lists yours and the agents’ commands of the workspace newest first, each once, with refs show resolves', () => {
    const all = runs();
    expect(all.map((r) => [r.by, r.source, r.command, r.status])).toEqual([
      ['me', 'terminal', 'echo hello', 'success'],
      ['agent', 'claude', 'npm test', 'failure'],
      // the subagent, the session's turn 3, the fork's own turn, then turn 1 (which the fork replays: listed once)
      ['agent', 'claude', 'echo hello', 'unknown'],
      ['agent', 'claude', 'echo hello', 'unknown'],
      ['agent', 'claude', 'echo hello', 'unknown'],
      ['agent', 'claude', 'echo hello', 'unknown'],
      ['me', 'terminal', 'npm test', 'failure'],
    ]);
    expect(all.map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const mine = all[0]!;
    expect(mine).toMatchObject({ ref: 'terminal/t1/3', output: 'hello', exit_code: 0, cwd: PROJ, ended_at: '2026-12-01T09:30:00.000Z', started_at: '2026-12-01T09:29:59.997Z' });
    const agent = all[2]!;
    // no exit code was recorded by the agent: none is invented
    expect(agent.exit_code).toBeUndefined();
    expect(agent).toMatchObject({ tool: 'Bash', output: 'hello', cwd: PROJ, session: expect.stringMatching(/^agent-/) });
    expect(agent.ref).toMatch(/^claude\/agent-ae7f12582b361fd20\/1\/p4$/);
    expect(Date.parse(agent.started_at!)).toBeLessThanOrEqual(Date.parse(agent.ended_at!));
    for (const r of all.filter((x) => x.by === 'agent')) {
      const shown = cli('show', r.ref, '--json');
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ kind: 'tool_output', label: 'Bash', text: r.output });
      expect(JSON.parse(cli('show', r.call_ref!, '--json').stdout)).toMatchObject({ kind: 'tool_call', label: 'Bash' });
    }
  });

  it('filters by author, status and workspace; one line each as text', () => {
    expect(runs('--by', 'me').map((r) => r.command)).toEqual(['echo hello', 'npm test']);
    expect(runs('--by', 'agent').every((r) => r.by === 'agent')).toBe(true);
    expect(runs('--status', 'failure').map((r) => [r.by, r.command])).toEqual([['agent', 'npm test'], ['me', 'npm test']]);
    expect(runs('--by', 'agent', '--status', 'failure').map((r) => r.ref)).toEqual([expect.stringMatching(new RegExp(`^claude/${FAILED}/1/p3$`))]);
    // another directory is another workspace; --global is all of them
    expect(runs('--limit', '50').some((r) => r.command === 'ls /')).toBe(false);
    expect(JSON.parse(cli('runs', '--global', '--json').stdout).some((r: RunJson) => r.command === 'ls /')).toBe(true);
    expect(runs('--include-self')[0]!.command).toBe('sivtr show claude/3e5c5f9d/1');
    expect(runs('--limit', '2')).toHaveLength(2);
    const text = cli('runs', '--cwd', PROJ, '--limit', '3');
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^1\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+0\s+me\s+echo hello\s+terminal\/t1\/3$/);
    expect(lines[1]).toMatch(new RegExp(`^2\\s+\\S+ \\S+\\s+err\\s+claude ${FAILED.slice(0, 8)}\\s+npm test\\s+claude/${FAILED.slice(0, 8)}/1/p3$`));
    expect(lines[2]).toMatch(/^3\s+\S+ \S+\s+\?\s+claude agent-ae\s+echo hello\s+claude\/agent-ae\/1\/p4$/);
  });

  it('says so when nothing ran, and refuses a bad --by', () => {
    const none = runCli(['runs'], { env, cwd: join(tmp.path, 'home') });
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('no commands in this workspace — add --global');
    const bad = cli('runs', '--by', 'them');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--by them is not one of/);
  });
});

describe('recency selectors with --by', () => {
  const print = (...args: string[]): string => {
    const r = cli(...args, '--print');
    expect(r.stderr).not.toMatch(/^sivtr: /m);
    expect(r.code).toBe(0);
    return r.stdout;
  };

  it('copy stays on this terminal by default; --by counts back through the stream as `runs` numbers it', () => {
    // this terminal: the last command is echo hello (the sivtr show after it is sivtr's own), the one before `ls /`
    expect(print('copy', 'out', '2')).toBe('bin\n');
    expect(print('copy', 'out', '2', '--by', 'all')).toBe('FAIL test/a.test.ts > adds\nTests 1 failed\n');
    expect(print('copy', 'cmd', '2', '--by', 'all')).toBe('npm test\n');
    expect(print('copy', 'out', '2', '--by', 'agent')).toBe('hello\n');
    expect(print('copy', 'out', '2', '--by', 'me')).toBe('Tests 2 failed\n');
    expect(print('copy', 'in', '1..2', '--by', 'all')).toBe('npm test\n$ echo hello\n');
    expect(print('copy', 'out', '3', '--by', 'all')).toBe('hello\n');
  });

  it('says how many runs there are when N is past them, and --by does not mix with a source', () => {
    const far = cli('copy', 'out', '99', '--by', 'agent', '--print');
    expect(far.code).toBe(1);
    expect(far.stderr).toBe('sivtr: only 5 commands run by an agent in this workspace — try a smaller selector\n');
    const named = cli('copy', 'claude', 'out', '--by', 'all');
    expect(named.code).toBe(1);
    expect(named.stderr).toBe('sivtr: --by counts every command that ran here, not those of claude — drop "claude": `sivtr copy out 1 --by all`\n');
  });

  it('diff compares two runs by anyone; show takes the refs runs prints', () => {
    const same = cli('diff', '1', '3', '--by', 'all');
    expect(same).toMatchObject({ code: 0, stdout: 'no differences\n' });
    const d = cli('diff', '2', '7', '--by', 'all');
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('--- terminal/t1/1 (7 runs ago) npm test');
    expect(d.stdout).toMatch(new RegExp(`\\+\\+\\+ claude/${FAILED.slice(0, 8)}/1/p3 \\(2 runs ago\\) claude: npm test`));
    expect(d.stdout).toContain('-Tests 2 failed');
    expect(d.stdout).toContain('+Tests 1 failed');
  });

  it('search --by agent --status failure finds the failed agent command only', () => {
    const r = cli('search', '--by', 'agent', '--status', 'failure', '--format', 'json');
    expect(r.code).toBe(0);
    const hits = (JSON.parse(r.stdout) as { hits: { ref: string; status: string; title: string; snippet: string }[] }).hits;
    expect(hits).toEqual([expect.objectContaining({ ref: `claude/${FAILED}/1/p3`, status: 'failure', title: 'npm test', snippet: 'FAIL test/a.test.ts > adds' })]);
    const words = cli('search', 'hello', '--by', 'all', '--format', 'refs', '--limit', '20');
    expect(words.stdout.trim().split('\n')).toHaveLength(5);
    const mine = cli('search', 'failed', '--by', 'me', '--format', 'refs');
    expect(mine.stdout).toBe('terminal/t1/1\n');
  });
});

describe('exit codes come from the agent, or not at all', () => {
  const listed = (set: string): RunJson[] => {
    const t = tempDir('sivtr-runs-exit-');
    try {
      copyRealHome(set, '/nowhere', join(t.path, 'home'), '/nowhere');
      const r = runCli(['runs', '--global', '--json'], { env: cleanEnv(join(t.path, 'home')) });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as RunJson[];
    } finally {
      t.cleanup();
    }
  };

  it('Codex recorded "Process exited with code 0": each run says 0', () => {
    const codex = listed('codex-0.171.0');
    // the fork replays turn 1 of its parent: its two calls are listed once
    expect(codex.map((r) => [r.command, r.exit_code, r.status])).toEqual([
      ['echo hello', 0, 'success'],
      ['cat notes.txt', 0, 'success'],
      ['echo hello', 0, 'success'],
    ]);
  });

  it('Gemini CLI and Pi recorded none: none is given', () => {
    for (const set of ['gemini-0.61.0', 'pi-0.73.1']) {
      const runs = listed(set);
      expect(runs.length).toBeGreaterThan(0);
      for (const r of runs) expect(r, set).toMatchObject({ command: 'echo hello', output: 'hello', status: 'unknown' });
      for (const r of runs) expect(r.exit_code, set).toBeUndefined();
    }
  });
});
