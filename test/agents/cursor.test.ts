// Cursor's agent CLI, on hand-made transcripts in the documented shapes (no genuine ones: the CLI
// is not on npm): JSONL with <user_query>, the older plain-text form, a subagent file that belongs
// to its parent, the directory read back from the project slug, and the title from store.db.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeJsonlChat, writeTextChat } from './fixtures/cursor.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-cursor-');
});
afterEach(() => tmp.cleanup());

describe('cursor', () => {
  it('reads JSONL transcripts: the query unwrapped, tool calls paired, cwd from the slug, title from store.db', () => {
    const work = join(tmp.path, 'my-app', 'web');
    mkdirSync(work, { recursive: true });
    const dir = writeJsonlChat(tmp.path, work);
    const env = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'cursor', '--json'], { env, cwd: work });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'a1', cwd: work, title: 'Retry for fetchUser', turns: 1 })]);
    const turn = JSON.parse(runCli(['show', 'cursor/a1/1', '--json'], { env, cwd: work }).stdout) as { blocks: { kind: string; text: string; label?: string }[] };
    expect(turn.blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output', 'assistant']);
    expect(turn.blocks[0]!.text).toBe('add retry to fetchUser');
    expect(turn.blocks[3]).toMatchObject({ label: 'Read', text: 'export function fetchUser() {}' });

    // --raw: each block's JSONL line as Cursor wrote it; a range gives each line once
    const lines = readFileSync(join(dir, 'a1.jsonl'), 'utf8').split('\n');
    const raw = (ref: string) => runCli(['show', ref, '--raw'], { env, cwd: work });
    expect(raw('cursor/a1/1/p1').stdout).toBe(lines[0] + '\n');
    expect(raw('cursor/a1/1/p2-4').stdout).toBe(lines.slice(1, 3).join('\n') + '\n');
    expect(raw('cursor/a1/1/p5').stdout).toBe(lines[3] + '\n');
  });

  it('reads the plain-text transcripts of older builds, under CURSOR_CONFIG_DIR', () => {
    writeTextChat(join(tmp.path, 'cur', 'projects'));
    const env = cleanEnv(tmp.path, { CURSOR_CONFIG_DIR: join(tmp.path, 'cur') });
    const turn = JSON.parse(runCli(['show', 'cursor/old/1', '--json'], { env }).stdout) as { blocks: { kind: string; text: string; label?: string }[] };
    expect(turn.blocks.map((b) => [b.kind, b.label ?? ''])).toEqual([['user', ''], ['thinking', ''], ['tool_call', 'ls'], ['tool_output', 'ls'], ['assistant', '']]);
    expect(runCli(['copy', 'cursor', 'out', '--print', '--session', 'old'], { env }).stdout.trimEnd()).toBe('src holds a.ts.');
    // --raw: the lines of each section, from its marker to its last non-blank line
    const raw = (ref: string) => runCli(['show', ref, '--raw'], { env });
    expect(raw('cursor/old/1/p1').stdout).toBe('user:\n<user_query>\nwhat is in src?\n</user_query>\n');
    expect(raw('cursor/old/1/p3-4').stdout).toBe('[Tool call] ls\n  path: src\n[Tool result] ls\n  a.ts\n');
    expect(raw('cursor/old/1/p5').stdout).toBe('assistant:\nsrc holds a.ts.\n');
  });
});
