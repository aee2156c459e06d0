// Aider, on a hand-made chat history file (Aider is a Python program): two runs in one file
// are two sessions, `#### ` lines are the user's, `> ` lines Aider's own output, the banner is
// not a command; found from a subdirectory, and through AIDER_CHAT_HISTORY_FILE.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-aider-');
});
afterEach(() => tmp.cleanup());

const HISTORY = `
# aider chat started at 2026-11-30 09:00:00

> Aider v0.86.0
> Model: gpt-x with diff edit format

#### add a --verbose flag
#### to the cli

I'll add the flag in cli.py.

cli.py
\`\`\`python
<<<<<<< SEARCH
=======
parser.add_argument("--verbose")
>>>>>>> REPLACE
\`\`\`

> Applied edit to cli.py
> Commit 1a2b3c4 feat: add --verbose

# aider chat started at 2026-11-30 11:00:00

> Aider v0.86.0

#### are all tests green?

#### /run pytest -q

> 3 passed in 0.12s

Yes: 3 passed.
`;

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

  it('reads the file AIDER_CHAT_HISTORY_FILE names', () => {
    writeFileSync(join(tmp.path, 'chat.md'), HISTORY);
    const env = cleanEnv(tmp.path, { AIDER_CHAT_HISTORY_FILE: join(tmp.path, 'chat.md') });
    expect(JSON.parse(runCli(['sessions', 'aider', '--global', '--json'], { env, cwd: tmp.path }).stdout)).toHaveLength(2);
  });
});
