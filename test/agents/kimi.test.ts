// kimi-cli, on a hand-made wire.jsonl in the shapes of its src/kimi_cli/wire/types.py (no genuine
// session: kimi-cli is a Python program): streamed text and thinking deltas joined, a tool call
// whose arguments arrive in parts paired with its result by id, a compaction, a sub-agent's
// events left out, state.json's title, kimi.json's work dir as cwd, a half-written last line,
// an unknown type, a turn still running, and KIMI_SHARE_DIR.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SID, write } from './fixtures/kimi.js';

type Rec = Record<string, unknown>;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-kimi-');
});
afterEach(() => tmp.cleanup());

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
    expect(blocks.map((b) => (b.raw as { lines: number[] }).lines)).toEqual([[2], [4, 5], [6, 7], [8, 9], [11], [15], [17]]);
    expect((JSON.parse(shown.stdout) as { ended: Rec }).ended).toMatchObject({ state: 'completed', evidence: 'TurnEnd', part: 7, raw: { lines: [20] } });
    // StatusUpdate token_usage: fresh input, output, cache reads and writes apart, one per response
    const turns = JSON.parse(runCli(['turns', `kimi/${SID}`, '--json'], { env, cwd: work }).stdout) as Rec[];
    expect(turns.map((t) => t.tokens)).toEqual([{ input: 1600, output: 62, cacheRead: 8000, cacheWrite: 300 }, undefined]);
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
