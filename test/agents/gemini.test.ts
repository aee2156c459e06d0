// Gemini CLI through the CLI: upserts, $set, $rewindTo, sessions spanning files, legacy JSON.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from './helpers.js';

const MAIN = '5c1a9e02-44b1-4e53-9a7e-0d8f3c2b1a77';
const LEGACY = 'bbbb2222-1111-4c4c-8d8d-0123456789ab';
const UNBOUND = 'aaaa1111-2222-4333-8444-555566667777';

let h: AgentHome;
beforeAll(() => {
  h = agentHome(['gemini']);
});
afterAll(() => h.cleanup());

type TurnJson = { turn: number; complete?: boolean; blocks: { kind: string; label?: string; callId?: string; text: string; isError?: boolean }[] };
const turns = (session: string): TurnJson[] => {
  const r = h.run(['import', `gemini/${session}`, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { units: TurnJson[] }).units;
};

describe('gemini', () => {
  it('lists one session per sessionId across files; sub-agent chats hidden; cwd from .project_root or projects.json', () => {
    const list = listJson(h, ['gemini', '--global']);
    expect(list.map((s) => s.id)).toEqual([MAIN, LEGACY, UNBOUND]);
    expect(list[0]).toMatchObject({ cwd: join(h.work, 'app'), title: 'Count TODOs', turns: 3, updated_at: '2026-04-02T11:30:09.000Z' });
    expect(list[1]).toMatchObject({ cwd: join(h.work, 'other'), turns: 2 });
    expect(list[2]).toMatchObject({ cwd: null, title: 'hello' });
    // a session without a known directory is kept by the workspace filter
    expect(listJson(h, ['gemini'], join(h.work, 'other')).map((s) => s.id)).toEqual([LEGACY, UNBOUND]);
  });

  it('applies upserts, $set.messages and $rewindTo the way Gemini does', () => {
    const all = turns(MAIN);
    expect(all.map((t) => t.blocks[0]!.text)).toEqual(['count TODOs in src', 'list them with line numbers', 'now fix the first one']);
    expect(all[0]!.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'tool_call', 'tool_output', 'assistant']);
    expect(all[0]!.blocks[3]).toMatchObject({ label: 'search_file_content', callId: 'grep-1', text: 'Found 3 matches' });
    const text = JSON.stringify(all);
    expect(text).not.toContain('FIXME'); // rewound
    expect(text).not.toContain('truncated'); // info notice
    expect(text.match(/Found 3 matches/g)).toHaveLength(1); // upsert + rewritten history: once
    expect(all[2]!.complete).toBe(false);
  });

  it('copy modes: the running turn is skipped for the reply', () => {
    const cwd = join(h.work, 'app');
    expect(h.run(['copy', 'gemini', 'out', '--print'], { cwd }).stdout).toBe('src/a.ts:3, src/b.ts:9, src/b.ts:40\n');
    expect(h.run(['copy', 'gemini', 'in', '--print'], { cwd }).stdout).toBe('now fix the first one\n');
    expect(h.run(['copy', 'gemini', 'tool', '--print'], { cwd }).stdout).toBe('Found 3 matches\n');
  });

  it('prefers the .jsonl written on resume over its legacy .json, and reads legacy-only sessions', () => {
    const [t1, t2] = turns('bbbb');
    expect(t1!.blocks[2]).toMatchObject({ kind: 'tool_output', isError: true, text: 'exit code 2: cannot find module ./gen' });
    expect(t2!.blocks.at(-1)!.text).toBe('Glad it builds now.');
    expect(JSON.stringify([t1, t2])).not.toContain('Quota warning');
    expect(turns('aaaa')[0]!.blocks.map((b) => b.text)).toEqual(['hello', 'Hello! How can I help?']);
  });

  it('imports a chat file by path, detecting the format from its content', () => {
    const file = join(h.home, '.gemini', 'tmp', 'other-1a2b', 'chats', 'session-2025-12-02T09-00-bbbb2222.json');
    const r = h.run(['import', file, '--json']);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as { source: string; units: TurnJson[] };
    expect(parsed.source).toBe('gemini');
    expect(parsed.units).toHaveLength(1);
  });

  it('honours GEMINI_CLI_HOME (the home that holds .gemini)', () => {
    const r = h.run(['sessions', 'gemini', '--global', '--json'], { env: { GEMINI_CLI_HOME: join(h.home, 'nowhere') } });
    expect(JSON.parse(r.stdout)).toEqual([]);
    const same = h.run(['sessions', 'gemini', '--global', '--json'], { env: { GEMINI_CLI_HOME: h.home } });
    expect((JSON.parse(same.stdout) as unknown[]).length).toBe(3);
  });
});
