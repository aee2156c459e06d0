// Continue CLI, on hand-made documents shaped like the genuine ones in fixtures/real/continue-*:
// the index's title, CONTINUE_GLOBAL_DIR, a failed tool call, a document being rewritten (not
// valid JSON for a moment), and the workspace filter.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-continue-');
});
afterEach(() => tmp.cleanup());

const SID = '11111111-2222-4333-8444-555555555555';

function write(global: string, cwd: string): void {
  const dir = join(global, 'sessions');
  mkdirSync(dir, { recursive: true });
  const history = [
    { message: { role: 'user', content: 'fix the test' }, contextItems: [] },
    {
      message: { role: 'assistant', content: 'Running it.', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"npm test"}' } }] },
      toolCallStates: [{ toolCallId: 'c1', status: 'errored', output: [{ content: 'Error: exit 1', name: 'Tool Result' }] }],
    },
    { message: { role: 'assistant', content: 'The test fails on line 3.' } },
    { message: { role: 'assistant', content: 'I will fix it next.' } },
  ];
  writeFileSync(join(dir, `${SID}.json`), JSON.stringify({ sessionId: SID, title: 'Untitled Session', workspaceDirectory: cwd, history }));
  writeFileSync(join(dir, '99999999-0000-4000-8000-000000000000.json'), '{"sessionId":"99999999-0000-4000-8000-000000000000","title":"x","his');
  writeFileSync(join(dir, 'sessions.json'), JSON.stringify([{ sessionId: SID, title: 'Flaky test', dateCreated: '1796115822737', workspaceDirectory: cwd, messageCount: 4 }]));
}

describe('continue', () => {
  it('reads the title from the index, the whole reply, a failed tool call, and skips a half-written document', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    write(join(tmp.path, '.continue'), work);
    const env = cleanEnv(tmp.path);
    const r = runCli(['sessions', 'continue', '--json'], { env, cwd: work });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ id: SID, title: 'Flaky test', cwd: work, turns: 1 })]);
    const shown = JSON.parse(runCli(['show', `continue/${SID}/1`, '--json'], { env, cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
    expect(shown.blocks.find((b) => b.kind === 'tool_output')).toMatchObject({ text: 'Error: exit 1', label: 'Bash', callId: 'c1' });
    expect(runCli(['copy', 'continue', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('The test fails on line 3.\n\nI will fix it next.');
    expect(JSON.parse(runCli(['sessions', 'continue', '--json'], { env, cwd: tmp.path }).stdout)).toHaveLength(0);
  });

  it('honours CONTINUE_GLOBAL_DIR', () => {
    write(join(tmp.path, 'cn'), tmp.path);
    const env = cleanEnv(tmp.path, { CONTINUE_GLOBAL_DIR: join(tmp.path, 'cn') });
    expect(JSON.parse(runCli(['sessions', 'continue', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
