// OpenHands CLI, on hand-made event folders in the SDK's documented shapes (no genuine
// conversation: OpenHands is a Python program): prompts and replies, a terminal action paired
// with its observation by tool_call_id and its exit code, a rejected action, a condensation,
// the `finish` tool as the reply, a half-written event, an unknown kind, and both path overrides.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { ID, text, write } from './fixtures/openhands.js';

type Rec = Record<string, unknown>;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-openhands-');
});
afterEach(() => tmp.cleanup());

describe('openhands', () => {
  it('reads prompts, replies, paired tool calls, rejections and condensations; the open turn is not the last reply', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    write(join(tmp.path, '.openhands', 'conversations'), work);
    const env = cleanEnv(tmp.path);
    const listed = JSON.parse(runCli(['sessions', 'openhands', '--json'], { env, cwd: work }).stdout) as Rec[];
    expect(listed).toEqual([expect.objectContaining({ id: ID, title: 'run the tests', cwd: work, turns: 2 })]);
    const shown = runCli(['show', `openhands/${ID}/1`, '--json'], { env, cwd: work });
    const blocks = (JSON.parse(shown.stdout) as { blocks: Rec[] }).blocks;
    expect(blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'tool_call', 'tool_output', 'compaction', 'assistant']);
    expect(blocks[0]!.text).toBe('run the tests');
    expect(blocks[3]).toMatchObject({ label: 'terminal', callId: 'call_1' });
    expect(String(blocks[3]!.text)).toContain('npm test');
    expect(blocks[4]).toMatchObject({ text: '1 failing', label: 'terminal', callId: 'call_1', isError: true, exitCode: 1 });
    // one event per file: the locator names the file, the whole document
    expect((blocks[4] as { raw?: { file: string; pointers: string[] } }).raw).toMatchObject({ pointers: [''] });
    expect((blocks[4] as { raw: { file: string } }).raw.file).toMatch(/events[\\/]event-\d+-[^\\/]+\.json$/);
    expect(blocks[6]).toMatchObject({ text: 'not that file', callId: 'call_2', isError: true });
    expect(blocks[7]!.text).toBe('The user asked for tests; one fails.');
    expect(shown.stderr).toMatch(/skipped 1 unreadable line/);
    const out = runCli(['copy', 'openhands', 'out', '--print'], { env, cwd: work });
    expect(out.stdout.trimEnd()).toBe('One test fails: fix pending.');
  });

  it('honours OPENHANDS_CONVERSATIONS_DIR, then OPENHANDS_PERSISTENCE_DIR', () => {
    write(join(tmp.path, 'direct'), tmp.path);
    write(join(tmp.path, 'persist', 'conversations'), tmp.path);
    const count = (extra: Record<string, string>): number => (JSON.parse(runCli(['sessions', 'openhands', '--global', '--json'], { env: cleanEnv(tmp.path, extra) }).stdout) as unknown[]).length;
    expect(count({ OPENHANDS_CONVERSATIONS_DIR: join(tmp.path, 'direct') })).toBe(1);
    expect(count({ OPENHANDS_PERSISTENCE_DIR: join(tmp.path, 'persist') })).toBe(1);
    expect(count({})).toBe(0);
  });

  it('finds an event added after the first search (the index watches the events folder)', () => {
    write(join(tmp.path, '.openhands', 'conversations'), tmp.path);
    const env = cleanEnv(tmp.path);
    expect(runCli(['search', 'openhands', 'tests', '--format', 'refs'], { env }).stdout).toMatch(new RegExp(`^openhands/${ID.slice(0, 8)}\\w*/1`, 'm'));
    expect(runCli(['search', 'openhands', 'zebrafish', '--format', 'refs'], { env }).stdout).not.toContain('openhands/');
    const dir = join(tmp.path, '.openhands', 'conversations', ID, 'events');
    writeFileSync(join(dir, 'event-00099-late.json'), JSON.stringify({ kind: 'MessageEvent', source: 'agent', timestamp: '2026-11-30T09:10:00Z', llm_message: { role: 'assistant', content: text('zebrafish fixed') } }));
    expect(runCli(['search', 'openhands', 'zebrafish', '--format', 'refs'], { env }).stdout).toMatch(new RegExp(`^openhands/${ID.slice(0, 8)}\\w*/2`, 'm'));
  });
});
