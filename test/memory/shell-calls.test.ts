// Shell calls recognised in every genuine transcript of fixtures/real/ (the commands each driver
// asked the mock model to run: scripts/conformance/lib.sh), plus the shapes the other providers
// store (their parsers' tests and the agents' own argument names).
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProvider } from '../../src/agents/registry.js';
import { assembleTurns } from '../../src/agents/turns.js';
import type { Block } from '../../src/agents/types.js';
import { shellCalls, shellCallOf, shellOutputText } from '../../src/memory/shell-calls.js';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';

const REAL = join(ROOT, 'fixtures', 'real');
const sets = readdirSync(REAL).filter((d) => existsSync(join(REAL, d, 'run.json')));

/** Per agent: the shell tool's name, the commands of the first turn in order, and whether the call names its cwd. */
const EXPECTED: Record<string, { tool: string; first: string[]; cwd: boolean; output: string }> = {
  claude: { tool: 'Bash', first: ['echo hello'], cwd: false, output: 'hello' },
  codex: { tool: 'exec_command', first: ['echo hello', 'cat notes.txt'], cwd: true, output: 'hello' },
  pi: { tool: 'bash', first: ['echo hello'], cwd: false, output: 'hello' },
  gemini: { tool: 'run_shell_command', first: ['echo hello'], cwd: false, output: 'hello' },
  opencode: { tool: 'bash', first: ['echo hello'], cwd: true, output: 'hello' },
  qwen: { tool: 'run_shell_command', first: ['echo hello'], cwd: false, output: 'hello' },
  droid: { tool: 'Execute', first: ['echo hello'], cwd: false, output: 'hello' },
  continue: { tool: 'Bash', first: ['echo hello'], cwd: false, output: 'hello' },
  copilot: { tool: 'bash', first: ['echo hello'], cwd: false, output: 'hello' },
  kilo: { tool: 'bash', first: ['echo hello'], cwd: true, output: 'hello' },
  auggie: { tool: 'launch-process', first: ['echo hello'], cwd: true, output: 'hello' },
};

/** The *-edits sets (run-<agent>-edits.sh): every shell command of the session, in order. */
const EDITS: Record<string, RegExp[]> = {
  // Codex applies a patch it is given as a shell command itself, but the call is still exec_command
  codex: [/^apply_patch <<'EOF'\n\*\*\* Begin Patch\n\*\*\* Add File: greeting\.txt\n/, /^apply_patch <<'EOF'\n\*\*\* Begin Patch\n\*\*\* Update File: greeting\.txt\n/],
  copilot: [/^sh make-banner\.sh$/],
  opencode: [/^sh make-banner\.sh$/],
};

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('sivtr-shell-calls-');
});
afterAll(() => tmp.cleanup());

describe('genuine transcripts', () => {
  it('every set with a shell tool is covered here', () => {
    for (const set of sets) expect(Object.keys(EXPECTED), set).toContain(JSON.parse(readFileSync(join(REAL, set, 'run.json'), 'utf8')).agent);
  });

  for (const set of sets) {
    const run = JSON.parse(readFileSync(join(REAL, set, 'run.json'), 'utf8')) as { agent: string; cwd: string };
    if (set.endsWith('-edits')) {
      it(`${set}: the commands the agent ran`, async () => {
        const home = join(tmp.path, set);
        cpSync(join(REAL, set, 'home'), home, { recursive: true });
        const env = cleanEnv(home);
        const provider = findProvider(run.agent)!;
        const commands: string[] = [];
        for await (const s of provider.discover({ env })) commands.push(...shellCalls((await provider.load(s, { env })).blocks).map((c) => c.command));
        expect(commands).toHaveLength(EDITS[run.agent]!.length);
        commands.forEach((c, i) => expect(c).toMatch(EDITS[run.agent]![i]!));
      });
      continue;
    }
    const want = EXPECTED[run.agent];
    if (!want) continue;
    it(`${set}: the commands the agent ran, with cwd and output`, async () => {
      const home = join(tmp.path, set);
      cpSync(join(REAL, set, 'home'), home, { recursive: true });
      const env = cleanEnv(home);
      const provider = findProvider(run.agent)!;
      const sessions: Block[][] = [];
      for await (const s of provider.discover({ env })) sessions.push((await provider.load(s, { env })).blocks);
      expect(sessions.length).toBeGreaterThan(0);
      for (const blocks of sessions) {
        const turns = assembleTurns({ id: '', blocks });
        const first = shellCalls(turns[0]!.blocks);
        expect(first.map((c) => c.command)).toEqual(want.first);
        expect(first.map((c) => c.tool)).toEqual(want.first.map(() => want.tool));
        expect(first[0]!.output?.kind).toBe('tool_output');
        expect(shellOutputText(first[0]!.output!.text)).toBe(want.output);
        expect(first[0]!.cwd).toBe(want.cwd ? run.cwd : undefined);
        // the read of notes.txt is a file tool, never a shell command, where the agent has one
        const all = shellCalls(blocks);
        for (const c of all) expect(c.command).toMatch(/^(echo hello|cat notes\.txt)$/);
        expect(all.every((c) => c.output !== undefined)).toBe(true);
      }
    });
  }
});

const call = (label: string, text: string, extra: Partial<Block> = {}): Block => ({ kind: 'tool_call', label, text, ...extra });
const out = (text: string, extra: Partial<Block> = {}): Block => ({ kind: 'tool_output', text, ...extra });

describe('argument shapes', () => {
  it.each([
    ['Codex shell: argv through bash -lc', 'shell', { command: ['bash', '-lc', 'npm test -- --run'], workdir: '/w' }, 'npm test -- --run', '/w'],
    ['Codex shell: a plain argv is quoted', 'shell', { command: ['git', 'commit', '-m', "it's done"] }, `git commit -m 'it'\\''s done'`, undefined],
    ['Codex shell_command', 'shell_command', { command: 'ls -la', workdir: '/w' }, 'ls -la', '/w'],
    ['Gemini dir_path', 'run_shell_command', { command: 'make', dir_path: '/w/sub' }, 'make', '/w/sub'],
    ['Qwen directory', 'run_shell_command', { command: 'make', directory: 'sub' }, 'make', 'sub'],
    ['Cline execute_command', 'execute_command', { command: 'npm run build', requires_approval: false }, 'npm run build', undefined],
    ['Roo execute_command with cwd', 'execute_command', { command: 'ls', cwd: '/w' }, 'ls', '/w'],
    ['Goose developer__shell', 'developer__shell', { command: 'npx eslint . --fix' }, 'npx eslint . --fix', undefined],
    ['Hermes terminal', 'terminal', { command: 'git status' }, 'git status', undefined],
    ['Zed terminal cd', 'terminal', { command: 'cargo test', cd: 'crate' }, 'cargo test', 'crate'],
    ['kimi Shell', 'Shell', { command: 'pytest -q' }, 'pytest -q', undefined],
    ['Cursor run_terminal_cmd', 'run_terminal_cmd', { command: 'go test ./...', is_background: false }, 'go test ./...', undefined],
    ['an MCP shell under a prefix', 'mcp__box__bash', { command: 'uname -a' }, 'uname -a', undefined],
  ])('%s', (_what, label, args, command, cwd) => {
    const found = shellCallOf(call(label, JSON.stringify(args, null, 2)));
    expect(found).toEqual(cwd === undefined ? { command } : { command, cwd });
  });

  it('a bare command line (a user-typed `!cmd`, Codex local_shell, Aider /run) is the command itself', () => {
    expect(shellCallOf(call('bash', 'ls -la | wc -l'))).toEqual({ command: 'ls -la | wc -l' });
    expect(shellCallOf(call('shell_command', '{ make; make install; }'))).toEqual({ command: '{ make; make install; }' });
    expect(shellCallOf(call('local_shell', 'bash -lc ls'))).toEqual({ command: 'bash -lc ls' });
    expect(shellCallOf(call('run', 'pytest'))).toEqual({ command: 'pytest' });
  });

  it('tools that are not shells, and shell tools without a command, are not commands', () => {
    expect(shellCallOf(call('Read', JSON.stringify({ file_path: '/w/a' })))).toBeUndefined();
    expect(shellCallOf(call('BashOutput', JSON.stringify({ bash_id: 'b1' })))).toBeUndefined();
    expect(shellCallOf(call('exec_command', JSON.stringify({ session_id: 3, chars: 'y\n' })))).toBeUndefined();
    expect(shellCallOf(call('bash', '{}'))).toBeUndefined();
    expect(shellCallOf(out('echo hi', { label: 'bash' }))).toBeUndefined();
  });

  it('outputs pair by call id; without ids, the next output no call claims', () => {
    const blocks: Block[] = [
      call('Bash', JSON.stringify({ command: 'a' }), { callId: 'c1' }),
      call('Bash', JSON.stringify({ command: 'b' }), { callId: 'c2' }),
      out('B', { callId: 'c2' }),
      out('A', { callId: 'c1' }),
      call('bash', 'c'),
      out('C'),
      call('bash', 'd'), // a user `!cmd` whose empty output was dropped
      call('bash', 'e'),
      out('E'),
    ];
    expect(shellCalls(blocks).map((c) => [c.command, c.output?.text])).toEqual([['a', 'A'], ['b', 'B'], ['c', 'C'], ['d', undefined], ['e', 'E']]);
  });

  it('Gemini CLI report around the output is taken off', () => {
    expect(shellOutputText('<untrusted_context>\nOutput: hello\nProcess Group PGID: 27961\n</untrusted_context>')).toBe('hello');
    expect(shellOutputText('Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 12')).toBe('');
    expect(shellOutputText('a\nOutput: b')).toBe('a\nOutput: b');
  });
});
