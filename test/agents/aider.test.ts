// Aider, on a hand-made chat history file (Aider is a Python program): two runs in one file
// are two sessions, `#### ` lines are the user's, `> ` lines Aider's own output, the banner is
// not a command; found from a subdirectory, and through AIDER_CHAT_HISTORY_FILE.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { HISTORY } from './fixtures/aider.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-aider-');
});
afterEach(() => tmp.cleanup());

describe('aider', () => {
  it('reads each run of the history file as a session, newest first, from a subdirectory of the repository', () => {
    const repo = join(tmp.path, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, ['.aider', 'chat', 'history', 'md'].join('.')), HISTORY);
    const env = cleanEnv(tmp.path, { TZ: 'UTC' });
    const listed = runCli(['sessions', 'aider', '--global', '--json'], { env, cwd: join(repo, 'src') });
    expect(listed.stderr).toBe('');
    const sessions = JSON.parse(listed.stdout) as { id: string; title: string; cwd: string; turns: number }[];
    expect(sessions.map((s) => [s.title, s.turns, s.cwd])).toEqual([
      ['are all tests green?', 1, repo],
      ['add a --verbose flag', 1, repo],
    ]);
    const first = JSON.parse(runCli(['show', `aider/${sessions[1]!.id}/1`, '--json'], { env, cwd: repo }).stdout) as { blocks: { kind: string; text: string }[] };
    expect(first.blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_output']);
    expect(first.blocks[0]!.text).toBe('add a --verbose flag\nto the cli');
    expect(first.blocks[2]!.text).toBe('Applied edit to cli.py\nCommit 1a2b3c4 feat: add --verbose');
    const last = JSON.parse(runCli(['show', `aider/${sessions[0]!.id}/1`, '--json'], { env, cwd: repo }).stdout) as { blocks: { kind: string; text: string; label?: string }[] };
    expect(last.blocks.map((b) => [b.kind, b.label ?? '', b.text])).toEqual([['user', '', 'are all tests green?'], ['tool_call', 'run', 'pytest -q'], ['tool_output', 'run', '3 passed in 0.12s'], ['assistant', '', 'Yes: 3 passed.']]);
    expect(runCli(['copy', 'aider', 'out', '--print'], { env, cwd: repo }).stdout.trimEnd()).toBe('Yes: 3 passed.');
  });

  it('--raw prints the Markdown lines each block was read from, as Aider wrote them', () => {
    const repo = join(tmp.path, 'repo');
    mkdirSync(repo);
    const file = join(repo, ['.aider', 'chat', 'history', 'md'].join('.'));
    writeFileSync(file, HISTORY);
    const env = cleanEnv(tmp.path, { TZ: 'UTC' });
    const lines = HISTORY.split('\n');
    const sessions = JSON.parse(runCli(['sessions', 'aider', '--json'], { env, cwd: repo }).stdout) as { id: string }[];
    const raw = (ref: string) => runCli(['show', ref, '--raw'], { env, cwd: repo });
    // the two-line prompt, the reply with its edit block (blank lines inside kept), Aider's own `> ` lines
    const first = `aider/${sessions[1]!.id}/1`;
    expect(raw(`${first}/p1`).stdout).toBe(lines.slice(6, 8).join('\n') + '\n');
    expect(raw(`${first}/p2`).stdout).toBe(lines.slice(9, 18).join('\n') + '\n');
    expect(raw(`${first}/p3`).stdout).toBe('> Applied edit to cli.py\n> Commit 1a2b3c4 feat: add --verbose\n');
    // the second run: a `/run` line is the call, its `> ` output the result
    const second = `aider/${sessions[0]!.id}/1`;
    expect(raw(`${second}/p2-3`).stdout).toBe('#### /run pytest -q\n> 3 passed in 0.12s\n');
    const located = JSON.parse(runCli(['show', `${second}/p4`, '--raw', '--json'], { env, cwd: repo }).stdout) as { locators: { file: string; lines: number[] }[]; records: string[] };
    expect(located.locators).toEqual([{ file, lines: [lines.indexOf('Yes: 3 passed.') + 1] }]);
    expect(located.records).toEqual(['Yes: 3 passed.']);
  });

  it('reads the file AIDER_CHAT_HISTORY_FILE names', () => {
    writeFileSync(join(tmp.path, 'chat.md'), HISTORY);
    const env = cleanEnv(tmp.path, { AIDER_CHAT_HISTORY_FILE: join(tmp.path, 'chat.md') });
    expect(JSON.parse(runCli(['sessions', 'aider', '--global', '--json'], { env, cwd: tmp.path }).stdout)).toHaveLength(2);
  });
});
