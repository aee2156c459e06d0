// Grok Build, on hand-made updates.jsonl files in the Agent Client Protocol shape the spec gives
// (no genuine ones: the CLI installs from outside npm): chunks joined, a tool call and its
// updates, a turn still running, a sub-agent left out, GROK_HOME.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { session } from './fixtures/grok.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-grok-');
});
afterEach(() => tmp.cleanup());

describe('grok', () => {
  it('joins chunks, pairs tool updates with their call, and keeps the running turn out of copy', () => {
    const work = join(tmp.path, 'app');
    mkdirSync(work);
    session(join(tmp.path, '.grok'), work, 'g1');
    session(join(tmp.path, '.grok'), work, 'g2', 'subagent');
    const env = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'grok', '--json'], { env, cwd: work });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'g1', title: 'Fix the flaky test', cwd: work, turns: 2 })]);
    const turn = JSON.parse(runCli(['show', 'grok/g1/1', '--json'], { env, cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
    expect(turn.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'assistant']);
    expect(turn.blocks[0]!.text).toBe('why is auth.test flaky?');
    expect(turn.blocks[4]).toMatchObject({ label: 'bash', callId: 'tc1', text: '1 failed: timeout', isError: true });
    // each block names the update lines it was built from; turn_completed is the turn's end
    expect(turn.blocks.map((b) => (b.raw as { lines: number[] }).lines)).toEqual([[1, 2], [3], [4], [5], [7], [8, 9]]);
    expect((turn as { ended?: unknown }).ended).toMatchObject({ state: 'completed', evidence: 'turn_completed', part: 6, raw: { lines: [11] } });
    // the turn's usage, from the payload that replaced the first: both models summed, cache reads apart from fresh input
    const turns = JSON.parse(runCli(['turns', 'grok/g1', '--json'], { env, cwd: work }).stdout) as { tokens?: unknown }[];
    expect(turns.map((x) => x.tokens)).toEqual([{ input: 1500, output: 120, cacheRead: 8000 }, undefined]);
    expect(runCli(['copy', 'grok', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('It times out under load.');
  });

  it('honours GROK_HOME', () => {
    session(join(tmp.path, 'gh'), tmp.path, 'g3');
    const env = cleanEnv(tmp.path, { GROK_HOME: join(tmp.path, 'gh') });
    expect(JSON.parse(runCli(['sessions', 'grok', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
