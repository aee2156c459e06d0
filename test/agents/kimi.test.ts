// kimi-cli, on a hand-made wire.jsonl in the shapes of its src/kimi_cli/wire/types.py (no genuine
// session: kimi-cli is a Python program): streamed text and thinking deltas joined, a tool call
// whose arguments arrive in parts paired with its result by id, a compaction, a sub-agent's
// events left out, state.json's title, kimi.json's work dir as cwd, a half-written last line,
// an unknown type, a turn still running, and KIMI_SHARE_DIR.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

type Rec = Record<string, unknown>;
const SID = '7d3f0c2e-1111-4a2b-9c3d-000000000001';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-kimi-');
});
afterEach(() => tmp.cleanup());

function write(share: string, work: string, title?: string): void {
  const dir = join(share, 'sessions', createHash('md5').update(work).digest('hex'), SID);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(share, 'kimi.json'), JSON.stringify({ work_dirs: [{ path: work, kaos: 'local', last_session_id: SID }] }));
  if (title) writeFileSync(join(dir, 'state.json'), JSON.stringify({ title }));
  let t = 1796119200;
  const rec = (type: string, payload: Rec): Rec => ({ timestamp: t++ + 0.25, message: { type, payload } });
  const lines: unknown[] = [
    { type: 'metadata', protocol_version: '1.10' },
    rec('TurnBegin', { user_input: [{ type: 'text', text: 'count the files' }] }),
    rec('StepBegin', { n: 1 }),
    rec('ContentPart', { type: 'think', think: 'Use ' }),
    rec('ContentPart', { type: 'think', think: 'ls.' }),
    rec('ContentPart', { type: 'text', text: 'Counting ' }),
    rec('ContentPart', { type: 'text', text: 'them.' }),
    rec('ToolCall', { type: 'function', id: 'tc_1', function: { name: 'Shell', arguments: '{"comm' } }),
    rec('ToolCallPart', { arguments_part: 'and":"ls | wc -l"}' }),
    rec('SubagentEvent', { parent_tool_call_id: 'tc_1', agent_id: 'a1', event: { type: 'ContentPart', payload: { type: 'text', text: 'sub-agent chatter' } } }),
    rec('ToolResult', { tool_call_id: 'tc_1', return_value: { is_error: false, output: '42\n', message: '', display: [] } }),
    rec('StatusUpdate', { context_usage: 0.1, token_usage: { input_other: 1 } }),
    rec('StepBegin', { n: 2 }),
    rec('CompactionBegin', {}),
    rec('CompactionEnd', {}),
    rec('ContentPart', { type: 'text', text: 'There are 42 files.' }),
    rec('BrandNewThing', { x: 1 }),
    rec('TurnEnd', {}),
    rec('TurnBegin', { user_input: 'and the folders?' }),
    rec('ToolCall', { type: 'function', id: 'tc_2', function: { name: 'Shell', arguments: '{"command":"ls -d */"}' } }),
    rec('ToolResult', { tool_call_id: 'tc_2', return_value: { is_error: true, output: '', message: 'command failed' } }),
  ];
  writeFileSync(join(dir, 'wire.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n\0\0\0\n{"timestamp": 1796119300, "mess');
}

describe('kimi', () => {
  it('reads turns, joined deltas, tool calls paired with results, compaction; a running turn is not the last completed one', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    write(join(tmp.path, '.kimi'), work, 'File census');
    const env = cleanEnv(tmp.path);
    const listed = JSON.parse(runCli(['sessions', 'kimi', '--json'], { env, cwd: work }).stdout) as Rec[];
    expect(listed).toEqual([expect.objectContaining({ id: SID, title: 'File census', cwd: work, turns: 2 })]);
    const shown = runCli(['show', `kimi/${SID}/1`, '--json'], { env, cwd: work });
    const blocks = (JSON.parse(shown.stdout) as { blocks: Rec[] }).blocks;
    expect(blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'compaction', 'assistant']);
    expect(blocks[1]!.text).toBe('Use ls.');
    expect(blocks[2]!.text).toBe('Counting them.');
    expect(blocks[3]).toMatchObject({ label: 'Shell', callId: 'tc_1' });
    expect(String(blocks[3]!.text)).toContain('ls | wc -l');
    expect(blocks[4]).toMatchObject({ text: '42', label: 'Shell', callId: 'tc_1' });
    // each block names the wire lines it was read from: a streamed one every line of its deltas
    expect(blocks.map((b) => (b.raw as { lines: number[] }).lines)).toEqual([[2], [4, 5], [6, 7], [8, 9], [11], [14], [16]]);
    expect((JSON.parse(shown.stdout) as { ended: Rec }).ended).toMatchObject({ state: 'completed', evidence: 'TurnEnd', part: 7, raw: { lines: [18] } });
    expect(shown.stdout).not.toContain('sub-agent chatter');
    expect(shown.stderr).toMatch(/skipped 1 unreadable line/);
    const turn2 = (JSON.parse(runCli(['show', `kimi/${SID}/2`, '--json'], { env, cwd: work }).stdout) as { blocks: Rec[] }).blocks;
    expect(turn2.at(-1)).toMatchObject({ kind: 'tool_output', text: 'command failed', isError: true });
    expect(runCli(['copy', 'kimi', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('There are 42 files.');
  });

  it('titles a session without state.json from its first prompt, and honours KIMI_SHARE_DIR', () => {
    write(join(tmp.path, 'share'), tmp.path);
    const env = cleanEnv(tmp.path, { KIMI_SHARE_DIR: join(tmp.path, 'share') });
    expect(JSON.parse(runCli(['sessions', 'kimi', '--global', '--json'], { env }).stdout)).toEqual([expect.objectContaining({ id: SID, title: 'count the files', cwd: tmp.path })]);
    expect(JSON.parse(runCli(['sessions', 'kimi', '--global', '--json'], { env: cleanEnv(tmp.path) }).stdout)).toHaveLength(0);
  });
});
