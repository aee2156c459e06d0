// Codex through the CLI: all three rollout eras, forks, sub-agents, rollbacks, compaction.
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from './helpers.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const BARE = '5a0c8e1e-2b3c-4d5e-8f90-a1b2c3d4e5f6';
const ENVELOPE = '0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60';
const FORK = '0199b0d4-1111-7c3d-9f00-aabbccddeeff';
const SUBAGENT = '0199b0d5-2222-7c3d-9f00-aabbccddeeff';
const NEW = '019a7e10-3c4d-7e5f-8a9b-0c1d2e3f4a5b';
const BASED_FORK = '019a7e20-5555-7e5f-8a9b-0c1d2e3f4a5b';
const COMPRESSED = '019c0000-aaaa-7bbb-8ccc-0123456789ab';

let h: AgentHome;
beforeAll(() => {
  h = agentHome(['codex']);
});
afterAll(() => h.cleanup());

type Block = { part: number; kind: string; label?: string; callId?: string; text: string; isError?: boolean };
type TurnJson = { ref: string; turn: number; complete?: boolean; session: { id: string; cwd?: string; title?: string }; blocks: Block[] };
const show = (ref: string): TurnJson => {
  const r = h.run(['show', ref, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as TurnJson;
};
const turns = (session: string): TurnJson[] => {
  const r = h.run(['import', `codex/${session}`, '--json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { units: TurnJson[] }).units;
};
const copy = (args: string[], cwd = join(h.work, 'app'), env?: Record<string, string | undefined>) => h.run(['copy', 'codex', ...args, '--print'], { cwd, env });

describe('codex: discovery', () => {
  it('lists rollouts of every era newest first; sub-agent rollouts are hidden; titles from session_index.jsonl', () => {
    const list = listJson(h, ['codex', '--global']);
    expect(list.map((s) => s.id)).toEqual([BASED_FORK, NEW, FORK, ENVELOPE, COMPRESSED, BARE]);
    expect(list.map((s) => s.id)).not.toContain(SUBAGENT);
    expect(list.find((s) => s.id === ENVELOPE)).toMatchObject({ title: 'health and metrics routes', cwd: join(h.work, 'app'), turns: 2 });
    expect(list.find((s) => s.id === NEW)).toMatchObject({ title: 'why is the build slow?', turns: 2, updated_at: '2026-11-20T10:02:05.000Z' });
  });

  it('recovers the cwd of a bare-era rollout from its environment context', () => {
    expect(listJson(h, ['codex'], join(h.work, 'legacy')).map((s) => s.id)).toEqual([BARE]);
  });

  it('honours CODEX_HOME', () => {
    const moved = join(h.home, 'codex-home');
    renameSync(join(h.home, '.codex'), moved);
    try {
      expect(listJson(h, ['codex', '--global'])).toEqual([]);
      const r = h.run(['sessions', 'codex', '--global', '--json'], { env: { CODEX_HOME: moved } });
      expect((JSON.parse(r.stdout) as unknown[]).length).toBe(6);
    } finally {
      renameSync(moved, join(h.home, '.codex'));
    }
  });
});

describe('codex: listing a rollout larger than its head (256 KiB)', () => {
  const rec = (ts: string, type: string, payload: object) => JSON.stringify({ timestamp: `2026-04-01T10:${ts}.000Z`, type, payload });
  const user = (ts: string, text: string) => [rec(ts, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }), rec(ts, 'event_msg', { type: 'user_message', message: text })];
  const reply = (ts: string, text: string) => rec(ts, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  const filler = (ts: string, n: number) => Array.from({ length: n }, (_, i) => rec(ts, 'response_item', { type: 'function_call_output', call_id: `c${i}`, output: 'x'.repeat(4000) }));
  const write = (id: string, lines: string[]) => {
    const path = join(h.home, '.codex', 'sessions', '2026', '04', '01', `rollout-2026-04-01T10-00-00-${id}.jsonl`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  const meta = (id: string) => rec('00:00', 'session_meta', { id, timestamp: '2026-04-01T10:00:00.000Z', cwd: join(h.work, 'app'), source: 'cli' });

  it('titles it by its first message, and by the first message a rollback in the head left', () => {
    const plain = '019d0000-1111-7aaa-8bbb-000000000001';
    const rolled = '019d0000-1111-7aaa-8bbb-000000000002';
    // Later turns and a rollback beyond the head change nothing the listing shows.
    const paths = [
      write(plain, [meta(plain), ...user('00:01', 'first ask'), reply('00:02', 'done'), ...filler('00:03', 40), ...user('00:04', 'second ask'), ...filler('00:05', 40), rec('00:06', 'event_msg', { type: 'thread_rolled_back', num_turns: 2 })]),
      write(rolled, [meta(rolled), ...user('00:01', 'first ask'), reply('00:02', 'done'), rec('00:03', 'event_msg', { type: 'thread_rolled_back', num_turns: 1 }), ...user('00:04', 'asked again'), ...filler('00:05', 80)]),
    ];
    try {
      const list = listJson(h, ['codex', '--global']);
      expect(list.find((s) => s.id === plain)).toMatchObject({ title: 'first ask', cwd: join(h.work, 'app'), updated_at: '2026-04-01T10:00:06.000Z' });
      expect(list.find((s) => s.id === rolled)).toMatchObject({ title: 'asked again', cwd: join(h.work, 'app'), updated_at: '2026-04-01T10:00:05.000Z' });
    } finally {
      for (const path of paths) rmSync(path);
    }
  });
  it('reads the rest of the head when its first 64 KiB do not tell the summary, or a rollback lies beyond them', () => {
    const late = '019d0000-1111-7aaa-8bbb-000000000003';
    const rolledLate = '019d0000-1111-7aaa-8bbb-000000000004';
    const longMeta = (id: string) => rec('00:00', 'session_meta', { id, timestamp: '2026-04-01T10:00:00.000Z', cwd: join(h.work, 'app'), source: 'cli', instructions: '会话 instructions '.repeat(6000) });
    const paths = [
      // The first message comes only after ~110 KB of instructions (CJK: a multi-byte character is cut at 64 KiB).
      write(late, [longMeta(late), ...user('00:01', 'late first ask'), reply('00:02', 'done'), ...filler('00:03', 60)]),
      // The rollback is ~80 KB in: only reading the whole head sees it.
      write(rolledLate, [meta(rolledLate), ...user('00:01', 'first ask'), reply('00:02', 'done'), ...filler('00:03', 20), rec('00:04', 'event_msg', { type: 'thread_rolled_back', num_turns: 1 }), ...user('00:05', 'asked again'), ...filler('00:06', 60)]),
    ];
    try {
      const list = listJson(h, ['codex', '--global']);
      expect(list.find((s) => s.id === late)).toMatchObject({ title: 'late first ask', cwd: join(h.work, 'app'), updated_at: '2026-04-01T10:00:03.000Z' });
      expect(list.find((s) => s.id === rolledLate)).toMatchObject({ title: 'asked again', cwd: join(h.work, 'app'), updated_at: '2026-04-01T10:00:06.000Z' });
    } finally {
      for (const path of paths) rmSync(path);
    }
  });
});

describe('codex: eras', () => {
  it('bare era: response items without envelopes, legacy shell output unwrapped', () => {
    const [t] = turns(BARE);
    expect(t!.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'tool_call', 'tool_output', 'assistant']);
    expect(t!.blocks[0]!.text).toBe('show the node version');
    expect(t!.blocks[3]).toMatchObject({ label: 'shell', callId: 'call_a', text: 'v20.11.0' });
  });

  it('envelope era: injected context skipped, commentary kept, events not doubled, exit codes flag errors', () => {
    const [t1] = turns(ENVELOPE);
    expect(t1!.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'tool_call', 'tool_output', 'assistant']);
    expect(t1!.blocks[3]).toMatchObject({ label: 'apply_patch', callId: 'call_7', text: '*** Begin Patch\n*** Add File: src/health.ts\n+export const ok = 1;\n*** End Patch' });
    expect(t1!.blocks[6]).toMatchObject({ label: 'shell', text: '1 failing: db.test.ts', isError: true });
    expect(t1!.blocks[7]!.text).toBe('Added `src/health.ts`; one unrelated test fails.'); // memory citation stripped
  });

  it('drops turns removed by thread_rolled_back', () => {
    const all = turns(ENVELOPE);
    expect(all.map((t) => t.blocks[0]!.text)).toEqual(['add a /health route', 'add /metrics like in this sketch\n[image: image/png, 18 B]']);
    expect(JSON.stringify(all)).not.toContain('Rolled back');
  });

  it('maps local_shell_call, array outputs and web_search_call', () => {
    const t = show('codex/0199b0c2/2');
    expect(t.blocks.slice(1).map((b) => `${b.kind}:${b.label}:${b.text}`)).toEqual([
      'tool_call:local_shell:ls src',
      'tool_output:local_shell:health.ts\nindex.ts',
      'tool_call:web_search:prometheus node client',
      'assistant:undefined:Added /metrics.',
    ]);
  });

  it('0.17x: exec_command framing removed, compaction summary not a reply, running last turn', () => {
    const [t1, t2] = turns(NEW);
    expect(t1!.blocks.filter((b) => b.kind !== 'compaction').map((b) => b.text)).toEqual([
      'why is the build slow?',
      '{\n  "cmd": "npm run build -- --profile",\n  "workdir": "' + join(h.work, 'app') + '"\n}',
      'build: 12.1s (tsc 10.8s)',
      'Type-checking takes 10.8 s of the 12.1 s build.',
    ]);
    // the summary is the compaction's, shown as such, and never the reply
    expect(t1!.blocks.at(-1)).toMatchObject({ kind: 'compaction' });
    expect(t1!.blocks.at(-1)!.text).toContain('Summary: the user asked');
    expect(JSON.stringify([t1, t2]).split('Summary: the user asked')).toHaveLength(2);
    expect(t2!.complete).toBe(false);
    expect(t2!.blocks.map((b) => b.kind)).toEqual(['user', 'tool_call']);
    expect(copy(['out'], join(h.work, 'app'), { CODEX_THREAD_ID: NEW }).stdout).toBe('Type-checking takes 10.8 s of the 12.1 s build.\n');
    expect(copy(['tool'], join(h.work, 'app'), { CODEX_THREAD_ID: NEW }).stdout).toBe('build: 12.1s (tsc 10.8s)\n');
  });

  it('a fork keeps its own id and cwd although it replays its parent', () => {
    const t = turns(FORK);
    expect(t[0]!.session).toMatchObject({ id: FORK, cwd: join(h.work, 'app') });
    expect(t.map((u) => u.blocks.at(-1)!.text)).toEqual(['Added `src/health.ts`.', 'Added tests in the fork.']);
  });
});

describe('codex: compressed rollouts', () => {
  it('lists and reads a .jsonl.zst rollout', () => {
    const list = listJson(h, ['codex', '--global']);
    expect(list.find((s) => s.id === COMPRESSED)).toMatchObject({ cwd: '/home/ana/archive', title: 'what does the archive job do?', turns: 1, updated_at: '2026-02-01T08:00:05.000Z' });
    const [t] = turns('019c');
    expect(t!.blocks.map((b) => b.text)).toEqual(['what does the archive job do?', 'It compresses rollouts older than 30 days.']);
  });

  it('a damaged .zst is reported in one line and the other rollouts still list', () => {
    const bad = join(h.home, '.codex', 'sessions', '2026', '02', '02', 'rollout-2026-02-02T09-00-00-019c0000-bbbb-7bbb-8ccc-0123456789ab.jsonl.zst');
    mkdirSync(dirname(bad), { recursive: true });
    writeFileSync(bad, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5]));
    try {
      const r = h.run(['sessions', 'codex', '--global', '--json']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^sivtr: cannot read Codex rollouts: .+0123456789ab\.jsonl\.zst \(.+\) — check their permissions\n$/);
      expect((JSON.parse(r.stdout) as unknown[]).length).toBe(6);
    } finally {
      rmSync(bad);
    }
  });
});

describe('codex: 0.17x forks', () => {
  it('a fork with a history_base shows the parent history up to the base, then its own turns', () => {
    const t = turns(BASED_FORK);
    expect(t[0]!.session).toMatchObject({ id: BASED_FORK, title: 'try swc instead of tsc' });
    expect(t.map((u) => u.blocks[0]!.text)).toEqual(['why is the build slow?', 'try swc instead of tsc']);
    expect(JSON.stringify(t)).not.toContain('make tsc incremental'); // parent turns after the base
    expect(t.map((u) => u.complete)).toEqual([undefined, undefined]);
  });
});

describe('codex: which session', () => {
  it('current: CODEX_THREAD_ID first, else newest in the workspace', () => {
    expect(copy(['out']).stdout).toBe('With swc the build takes 1.9 s.\n');
    expect(copy(['out'], join(h.work, 'app'), { CODEX_THREAD_ID: FORK }).stdout).toBe('Added tests in the fork.\n');
    expect(copy(['out'], join(h.work, 'legacy')).stdout).toBe('Node is v20.11.0.\n');
  });

  it('--session by index and prefix, ambiguous prefixes listed', () => {
    expect(copy(['out', '--session', '4']).stdout).toBe('Added /metrics.\n');
    expect(copy(['in', '--session', '5a0c']).stdout).toBe('show the node version\n');
    const amb = copy(['out', '--session', '0199b0']);
    expect(amb.code).toBe(1);
    expect(amb.stderr).toContain(ENVELOPE);
    expect(amb.stderr).toContain(FORK);
  });

  it('JSON refs carry the full id; printed ids of time-ordered UUIDs keep headroom past the shared prefix', () => {
    const list = listJson(h, ['codex', '--global']);
    expect(list.find((s) => s.id === FORK)!.ref).toBe(`codex/${FORK}`);
    expect(list.find((s) => s.id === ENVELOPE)!.ref).toBe(`codex/${ENVELOPE}`);
    // The two share "0199b0": unique at 7 characters, printed with two more (past the dash).
    const table = h.run(['sessions', 'codex', '--global']).stdout;
    expect(table).toMatch(/^0199b0d4-1  codex /m);
    expect(table).toMatch(/^0199b0c2-7  codex /m);
    expect(table).toMatch(/^5a0c8e1e +codex /m); // nothing near it: the 8-character minimum
    expect(h.run(['show', 'codex/0199b0d4-1/1']).code).toBe(0);
  });
});

describe('codex: titles from state_N.sqlite', () => {
  it('a name given to the thread (threads.name, else threads.title of the newest state file) is its title', async () => {
    const { default: Database } = await import('better-sqlite3');
    const real = join(ROOT, 'fixtures', 'real', 'codex-0.171.0', 'home');
    const run = JSON.parse(readFileSync(join(real, '..', 'run.json'), 'utf8')) as { ids: { main: string; fork: string } };
    const tmp = tempDir('sivtr-codex-state-');
    try {
      cpSync(real, tmp.path, { recursive: true });
      const db = new Database(join(tmp.path, '.codex', 'state_5.sqlite'));
      db.prepare('UPDATE threads SET name = ? WHERE id = ?').run('Release checklist', run.ids.main);
      db.prepare('UPDATE threads SET title = ? WHERE id = ?').run('Fork of the checklist', run.ids.fork);
      db.close();
      const r = runCli(['sessions', 'codex', '--global', '--json'], { env: cleanEnv(tmp.path) });
      const titles = Object.fromEntries((JSON.parse(r.stdout) as { id: string; title: string }[]).map((s) => [s.id, s.title]));
      expect(titles).toEqual({ [run.ids.main]: 'Release checklist', [run.ids.fork]: 'Fork of the checklist' });
      const shown = JSON.parse(runCli(['show', `codex/${run.ids.main}/1`, '--json'], { env: cleanEnv(tmp.path) }).stdout) as TurnJson;
      expect(shown.session.title).toBe('Release checklist');
    } finally {
      tmp.cleanup();
    }
  });
});
