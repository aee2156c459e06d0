// GitHub Copilot CLI, on hand-made events shaped like the genuine ones in fixtures/real/copilot-*:
// a failed shell command, a user-named session, the flat layout of older versions, COPILOT_HOME,
// ephemeral and unknown events, and a half-written last line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-copilot-');
});
afterEach(() => tmp.cleanup());

const SID = 'c0c0c0c0-1111-4222-8333-444444444444';
let n = 0;
const ev = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type, data, id: `e${n}`, timestamp: new Date(Date.UTC(2026, 10, 30, 8, 0, n++)).toISOString(), ...extra });

function events(cwd: string): string {
  n = 0;
  return [
    ev('session.start', { sessionId: SID, copilotVersion: '1.0.102', context: { cwd } }),
    ev('user.message', { content: 'run the tests', transformedContent: '<current_datetime>x</current_datetime>\n\nrun the tests' }),
    ev('system.message', { role: 'system', content: 'You are…' }),
    ev('assistant.message', { content: 'Running them.', toolRequests: [{ toolCallId: 't1', name: 'bash', arguments: { command: 'npm test' } }] }),
    ev('assistant.message_delta', { deltaContent: 'x' }, { ephemeral: true }),
    ev('tool.execution_start', { toolCallId: 't1', toolName: 'bash', arguments: { command: 'npm test' } }),
    ev('tool.execution_complete', { toolCallId: 't1', success: true, shellExecution: { exitCode: 1 }, result: { content: '1 failed\n<shellId: 0 completed with exit code 1>' } }),
    ev('assistant.message', { content: 'One test fails.', toolRequests: [] }),
    ev('assistant.message', { content: 'It is the date parser.', toolRequests: [] }),
    ev('some.future_event', { x: 1 }),
    ev('session.shutdown', {}),
  ].join('\n') + '\n{"type":"user.mess';
}

describe('copilot', () => {
  it('reads a session: whole reply, a failed command, the user-given name; ephemeral and unknown events ignored', () => {
    const work = join(tmp.path, 'proj');
    const dir = join(tmp.path, '.copilot', 'session-state', SID);
    mkdirSync(work);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'events.jsonl'), events(work));
    writeFileSync(join(dir, 'workspace.yaml'), `id: ${SID}\ncwd: ${work}\nname: "Fix the parser"\nuser_named: true\n`);
    const env = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'copilot', '--json'], { env, cwd: work });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: SID, title: 'Fix the parser', cwd: work, turns: 1 })]);
    const turn = JSON.parse(runCli(['show', `copilot/${SID}/1`, '--json'], { env, cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
    expect(turn.blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output', 'assistant', 'assistant']);
    expect(turn.blocks[3]).toMatchObject({ text: '1 failed', label: 'bash', callId: 't1', isError: true });
    expect(runCli(['copy', 'copilot', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('One test fails.\n\nIt is the date parser.');
  });

  it('finds the flat layout of older versions under COPILOT_HOME', () => {
    const root = join(tmp.path, 'cp', 'session-state');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, `${SID}.jsonl`), events(tmp.path));
    const env = cleanEnv(tmp.path, { COPILOT_HOME: join(tmp.path, 'cp') });
    const listed = JSON.parse(runCli(['sessions', 'copilot', '--global', '--json'], { env }).stdout) as { title: string }[];
    expect(listed).toEqual([expect.objectContaining({ title: 'run the tests' })]);
  });
});
