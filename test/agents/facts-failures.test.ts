// What the genuine transcripts cannot show (the mock model's commands all succeed): failed
// commands, interrupted and failed turns, in the shapes each agent writes them, read through the
// CLI (`show --json`, `errors`). Exit codes appear only where the agent wrote one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: { path: string; cleanup: () => void };
let env: NodeJS.ProcessEnv;
let work: string;

const jsonl = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const write = (path: string, text: string): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

const PI_ID = '01a230d6-0000-7000-8000-00000000000a';
const GEMINI_ID = 'aaaa1111-2222-4333-8444-555566667777';
const COPILOT_ID = 'c0c0c0c0-1111-4222-8333-444455556666';
const DROID_ID = 'd0d0d0d0-1111-4222-8333-444455556666';

function piSession(cwd: string): string {
  const msg = (id: string, parentId: string | null, at: string, message: Record<string, unknown>) => ({ type: 'message', id, parentId, timestamp: at, message: { timestamp: Date.parse(at), ...message } });
  return jsonl([
    { type: 'session', version: 3, id: PI_ID, timestamp: '2026-11-30T09:00:00.000Z', cwd },
    msg('e1', null, '2026-11-30T09:00:01.000Z', { role: 'user', content: [{ type: 'text', text: 'run the linter' }] }),
    msg('e2', 'e1', '2026-11-30T09:00:02.000Z', { role: 'assistant', content: [{ type: 'text', text: 'Running the linter.' }, { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'npm run lint' } }], stopReason: 'toolUse', usage: { input: 50, output: 9, cacheRead: 400, cacheWrite: 30 } }),
    msg('e3', 'e2', '2026-11-30T09:00:03.000Z', { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'src/a.ts: 3 problems\n\nCommand exited with code 1' }], isError: true }),
    msg('e4', 'e3', '2026-11-30T09:00:04.000Z', { role: 'assistant', content: [], stopReason: 'aborted', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
    msg('e5', 'e4', '2026-11-30T09:01:00.000Z', { role: 'user', content: [{ type: 'text', text: 'why did it stop?' }] }),
    msg('e6', 'e5', '2026-11-30T09:01:01.000Z', { role: 'assistant', content: [{ type: 'text', text: 'The provider failed.' }], stopReason: 'error', errorMessage: '529 overloaded' }),
  ]);
}

function geminiChat(): string {
  return jsonl([
    { sessionId: GEMINI_ID, projectHash: 'p', startTime: '2026-11-30T10:00:00.000Z', lastUpdated: '2026-11-30T10:00:05.000Z', kind: 'main' },
    { id: 'g1', type: 'user', timestamp: '2026-11-30T10:00:01.000Z', content: [{ text: 'build it' }] },
    {
      id: 'g2', type: 'gemini', timestamp: '2026-11-30T10:00:02.000Z', content: 'Building.', tokens: { input: 1000, output: 20, cached: 600, thoughts: 12, tool: 5, total: 1037 },
      toolCalls: [{ id: 'sh1', name: 'run_shell_command', args: { command: 'make' }, status: 'success', timestamp: '2026-11-30T10:00:03.000Z', result: [{ functionResponse: { id: 'sh1', name: 'run_shell_command', response: { output: 'Output: make: *** No rule\nExit Code: 2\nProcess Group PGID: 42' } } }] }],
    },
    { id: 'g3', type: 'gemini', timestamp: '2026-11-30T10:00:05.000Z', content: 'make failed with code 2.' },
  ]);
}

function copilotEvents(cwd: string): string {
  const ev = (type: string, at: string, data: Record<string, unknown>) => ({ type, timestamp: at, id: `${type}-${at}`, data });
  return jsonl([
    ev('session.start', '2026-11-30T11:00:00.000Z', { sessionId: COPILOT_ID, startTime: '2026-11-30T11:00:00.000Z', context: { cwd } }),
    ev('user.message', '2026-11-30T11:00:01.000Z', { content: 'deploy' }),
    ev('session.usage_record', '2026-11-30T11:00:02.000Z', { usage: { inputTokens: 70, outputTokens: 8, cacheReadTokens: 300, cacheWriteTokens: 0 } }),
    ev('assistant.message', '2026-11-30T11:00:02.100Z', { content: '', toolRequests: [{ toolCallId: 't1', name: 'bash', arguments: { command: './deploy.sh' } }] }),
    ev('tool.execution_complete', '2026-11-30T11:00:03.000Z', { toolCallId: 't1', success: false, shellExecution: { exitCode: 3 }, result: { content: 'permission denied\n<shellId: 0 completed with exit code 3>' } }),
    ev('assistant.turn_end', '2026-11-30T11:00:03.100Z', {}),
    ev('abort', '2026-11-30T11:00:04.000Z', { reason: 'user initiated' }),
  ]);
}

function droidSession(cwd: string): string {
  const m = (id: string, parentId: string | null, at: string, message: unknown) => ({ type: 'message', id, parentId, timestamp: at, message });
  return jsonl([
    { type: 'session_start', id: DROID_ID, title: 'tests', cwd },
    m('m1', null, '2026-11-30T12:00:01.000Z', { role: 'user', content: [{ type: 'text', text: 'run tests' }] }),
    m('m2', 'm1', '2026-11-30T12:00:02.000Z', { role: 'assistant', content: [{ type: 'tool_use', id: 'x1', name: 'Execute', input: { command: 'pytest' } }] }),
    m('m3', 'm2', '2026-11-30T12:00:03.000Z', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x1', is_error: false, content: '1 failed\n\n[Process exited with code 1]' }] }),
    m('m4', 'm3', '2026-11-30T12:00:04.000Z', { role: 'assistant', content: [{ type: 'text', text: 'One test fails.' }] }),
    { type: 'agent_turn_outcome', turnId: 't', reason: 'cancelled', resultKind: 'text' },
  ]);
}

beforeAll(() => {
  tmp = tempDir('sivtr-facts-fail-');
  const home = join(tmp.path, 'home');
  work = join(tmp.path, 'work');
  mkdirSync(work, { recursive: true });
  write(join(home, '.pi', 'agent', 'sessions', '--work--', `2026-11-30T09-00-00-000Z_${PI_ID}.jsonl`), piSession(work));
  write(join(home, '.gemini', 'tmp', 'proj', 'chats', 'session-2026-11-30T10-00-aaaa1111.jsonl'), geminiChat());
  write(join(home, '.gemini', 'tmp', 'proj', '.project_root'), work);
  write(join(home, '.copilot', 'session-state', COPILOT_ID, 'events.jsonl'), copilotEvents(work));
  write(join(home, '.factory', 'sessions', '-work', `${DROID_ID}.jsonl`), droidSession(work));
  env = cleanEnv(home, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterAll(() => tmp.cleanup());

type Block = { part: number; kind: string; exitCode?: number; isError?: boolean; usage?: Record<string, number> };
type Turn = { ended?: { state: string; evidence: string; part: number }; blocks: Block[] };
const show = (ref: string): Turn => {
  const r = runCli(['show', ref, '--json'], { env, cwd: work });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Turn;
};
const outputs = (t: Turn) => t.blocks.filter((b) => b.kind === 'tool_output').map((b) => [b.exitCode, b.isError === true]);

describe('failures as each agent writes them', () => {
  it('pi: "Command exited with code 1" in a failed bash result; stopReason aborted and error are the evidence', () => {
    const t1 = show(`pi/${PI_ID}/1`);
    expect(outputs(t1)).toEqual([[1, true]]);
    expect(t1.blocks[1]!.usage).toEqual({ input: 50, output: 9, cacheRead: 400, cacheWrite: 30 });
    // the aborted message has no content: its evidence goes on the block before it
    expect(t1.ended).toMatchObject({ state: 'aborted', evidence: 'stopReason: aborted', part: 4 });
    expect(show(`pi/${PI_ID}/2`).ended).toMatchObject({ state: 'error', evidence: 'stopReason: error (529 overloaded)' });
  });

  it('gemini: "Exit Code: 2" in run_shell_command output; cached input and thoughts kept apart', () => {
    const t1 = show(`gemini/${GEMINI_ID}/1`);
    expect(outputs(t1)).toEqual([[2, false]]);
    // input 1000 includes 600 cached; the 5 tool-use prompt tokens are input too; output adds the 12 thoughts
    expect(t1.blocks.find((b) => b.usage)!.usage).toEqual({ input: 405, output: 32, cacheRead: 600, reasoning: 12 });
  });

  it('copilot: shellExecution.exitCode 3, usage from the record before the message, abort as the end', () => {
    const t1 = show(`copilot/${COPILOT_ID}/1`);
    expect(outputs(t1)).toEqual([[3, true]]);
    expect(t1.blocks.find((b) => b.usage)!.usage).toEqual({ input: 70, output: 8, cacheRead: 300, cacheWrite: 0 });
    // a turn_end after a tool request is not the end of the user's turn; the abort is
    expect(t1.ended).toMatchObject({ state: 'aborted', evidence: 'abort: user initiated' });
  });

  it('droid: "[Process exited with code 1]" with is_error false is still a failure; a cancelled outcome is an abort', () => {
    const t1 = show(`droid/${DROID_ID}/1`);
    expect(outputs(t1)).toEqual([[1, true]]);
    expect(t1.ended).toMatchObject({ state: 'aborted', evidence: 'agent_turn_outcome: cancelled' });
  });

  it('errors lists each of them with the exit code the agent wrote', () => {
    const r = runCli(['errors', '--json'], { env, cwd: work });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { ref: string; exitCode?: number; command: string }[];
    expect(list.map((f) => [f.ref.split('/')[0], f.exitCode, f.command])).toEqual([
      ['droid', 1, 'pytest'],
      ['copilot', 3, './deploy.sh'],
      ['gemini', 2, 'make'],
      ['pi', 1, 'npm run lint'],
    ]);
  });
});
