// Auggie, on a hand-made document shaped like the genuine one in fixtures/real/auggie-*: a failed
// command (return code 1), the cwd from the IDE state node, and a turn still waiting for a result.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-auggie-');
});
afterEach(() => tmp.cleanup());

const ide = (cwd: string) => ({ id: 9, type: 4, ide_state_node: { workspace_folders: [{ folder_root: cwd }], current_terminal: { current_working_directory: cwd } } });
const ex = (request_message: string, request_nodes: unknown[], response_nodes: unknown[]) => ({ exchange: { request_message, response_text: '', request_nodes, response_nodes }, completed: true, finishedAt: '2026-11-30T10:00:00.000Z' });

describe('auggie', () => {
  it('pairs a failed command with its call, takes the cwd from the IDE state, and skips a turn still waiting', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    const dir = join(tmp.path, '.augment', 'sessions');
    mkdirSync(dir, { recursive: true });
    const history = [
      ex('run make', [{ id: 1, type: 0, text_node: { content: 'run make' } }, ide(work)], [{ id: 0, type: 0, content: 'Running make.' }, { id: 1, type: 5, tool_use: { tool_use_id: 'u1', tool_name: 'launch-process', input_json: '{"command":"make"}' } }]),
      ex('', [ide(work), { id: 2, type: 1, tool_result_node: { tool_use_id: 'u1', content: 'Here are the results from executing the command.\n<return-code>\n2\n</return-code>\n<output>\nmake: *** No targets.\n</output>', is_error: false } }], [{ id: 0, type: 0, content: 'make found no Makefile.' }]),
      ex('write one', [{ id: 1, type: 0, text_node: { content: 'write one' } }, ide(work)], [{ id: 1, type: 5, tool_use: { tool_use_id: 'u2', tool_name: 'save-file', input_json: '{"path":"Makefile"}' } }]),
    ];
    writeFileSync(join(dir, 's1.json'), JSON.stringify({ sessionId: 's1', created: '2026-11-30T09:59:00.000Z', modified: '2026-11-30T10:00:00.000Z', chatHistory: history }, null, 2));
    const env = cleanEnv(tmp.path);
    expect(JSON.parse(runCli(['sessions', 'auggie', '--json'], { env, cwd: work }).stdout)).toEqual([expect.objectContaining({ id: 's1', cwd: work, turns: 2, title: 'run make' })]);
    const turn = JSON.parse(runCli(['show', 'auggie/s1/1', '--json'], { env, cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
    expect(turn.blocks[3]).toMatchObject({ kind: 'tool_output', label: 'launch-process', callId: 'u1', text: 'make: *** No targets.', isError: true });
    expect(runCli(['copy', 'auggie', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('make found no Makefile.');
  });
});
