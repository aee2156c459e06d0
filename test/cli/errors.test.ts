// `sivtr errors` and `search --status failure` through the CLI, over hand-made transcripts that
// hold each case of the one failure definition: a non-zero exit code the agent recorded, an
// unknown exit code with the agent's error flag, a recorded exit code 0 (never a failure, even
// flagged), and a terminal record's exit code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

let tmp: { path: string; cleanup: () => void };
let env: NodeJS.ProcessEnv;
let work: string;
let elsewhere: string;

const CLAUDE_ID = '11111111-2222-4333-8444-555555555555';
const CODEX_ID = '01a230d5-0000-7000-8000-000000000001';

const jsonl = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

function claudeTranscript(cwd: string): string {
  let parent: string | null = null;
  let n = 0;
  const rec = (type: 'user' | 'assistant', message: unknown, at: string, extra: Record<string, unknown> = {}) => {
    const uuid = `u-${++n}`;
    const r = { type, uuid, parentUuid: parent, sessionId: CLAUDE_ID, cwd, timestamp: at, message, ...extra };
    parent = uuid;
    return r;
  };
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 };
  return jsonl([
    rec('user', { role: 'user', content: 'run the tests' }, '2026-11-30T10:00:00Z'),
    rec('assistant', { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test', description: 'tests' } }], stop_reason: 'tool_use', usage }, '2026-11-30T10:00:01Z'),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: 'Exit code 1\nFAIL test/a.test.ts' }] }, '2026-11-30T10:00:02Z'),
    rec('assistant', { id: 'msg_2', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/nope.txt' } }], stop_reason: 'tool_use', usage }, '2026-11-30T10:00:03Z'),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'File does not exist.' }] }, '2026-11-30T10:00:04Z'),
    rec('assistant', { id: 'msg_3', role: 'assistant', content: [{ type: 'text', text: 'The tests fail.' }], stop_reason: 'end_turn', usage }, '2026-11-30T10:00:05Z'),
    rec('user', { role: 'user', content: 'try again' }, '2026-11-30T10:01:00Z'),
    rec('assistant', { id: 'msg_4', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'sleep 100' } }], stop_reason: 'tool_use', usage }, '2026-11-30T10:01:01Z'),
    rec('user', { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] }, '2026-11-30T10:01:09Z'),
  ]);
}

function codexRollout(cwd: string): string {
  const ev = (timestamp: string, type: string, payload: Record<string, unknown>) => ({ timestamp, type, payload });
  return jsonl([
    ev('2026-11-30T11:00:00Z', 'session_meta', { id: CODEX_ID, timestamp: '2026-11-30T11:00:00Z', cwd }),
    ev('2026-11-30T11:00:00Z', 'event_msg', { type: 'task_started' }),
    ev('2026-11-30T11:00:01Z', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build it' }] }),
    ev('2026-11-30T11:00:02Z', 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'make build' }), call_id: 'call_1' }),
    ev('2026-11-30T11:00:03Z', 'response_item', { type: 'function_call_output', call_id: 'call_1', output: 'Chunk ID: ab12\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nmake: *** [build] Error 2\n' }),
    ev('2026-11-30T11:00:04Z', 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'ls' }), call_id: 'call_2' }),
    // exit 0 recorded: not a failure, whatever the text says
    ev('2026-11-30T11:00:05Z', 'response_item', { type: 'function_call_output', call_id: 'call_2', output: 'Process exited with code 0\nOutput:\nerror.log\n' }),
    ev('2026-11-30T11:00:06Z', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The build failed.' }] }),
    ev('2026-11-30T11:00:06Z', 'event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: 300, cached_input_tokens: 200, output_tokens: 40 }, last_token_usage: { input_tokens: 300, cached_input_tokens: 200, output_tokens: 40, reasoning_output_tokens: 8 } } }),
    ev('2026-11-30T11:00:07Z', 'event_msg', { type: 'task_complete' }),
    ev('2026-11-30T11:05:00Z', 'event_msg', { type: 'task_started' }),
    ev('2026-11-30T11:05:01Z', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'never mind' }] }),
    ev('2026-11-30T11:05:02Z', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Stopping.' }] }),
    ev('2026-11-30T11:05:03Z', 'event_msg', { type: 'turn_aborted', reason: 'interrupted' }),
  ]);
}

beforeAll(() => {
  tmp = tempDir('sivtr-errors-');
  const home = join(tmp.path, 'home');
  work = join(tmp.path, 'work');
  elsewhere = join(tmp.path, 'elsewhere');
  for (const d of [home, work, elsewhere]) mkdirSync(d, { recursive: true });
  const claudeDir = join(home, '.claude', 'projects', '-work');
  mkdirSync(claudeDir, { recursive: true });
  writeFileSync(join(claudeDir, `${CLAUDE_ID}.jsonl`), claudeTranscript(work));
  const codexDir = join(home, '.codex', 'sessions', '2026', '11', '30');
  mkdirSync(codexDir, { recursive: true });
  writeFileSync(join(codexDir, `rollout-2026-11-30T11-00-00-${CODEX_ID}.jsonl`), codexRollout(work));
  const data = join(tmp.path, 'data');
  writeLog(data, 'term-1', [
    { prompt: '$ ', command: 'cargo build', output: 'error[E0425]: cannot find value `x`', cwd: work, ended_at: '2026-11-30T12:00:00Z', exit_code: 101 },
    { prompt: '$ ', command: 'true', output: '', cwd: work, ended_at: '2026-11-30T12:01:00Z', exit_code: 0 },
    { prompt: '$ ', command: 'false', output: '', cwd: elsewhere, ended_at: '2026-11-30T12:02:00Z', exit_code: 1 },
  ]);
  env = cleanEnv(home, { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterAll(() => tmp.cleanup());

type Failure = { ref: string; source: string; exitCode?: number; isError?: boolean; command: string; label?: string; output: string; at?: string };
const errors = (...args: string[]): Failure[] => {
  const r = runCli(['errors', ...args, '--json'], { env, cwd: work });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Failure[];
};

describe('sivtr errors', () => {
  it('lists every failure of the workspace newest first, with exit codes only where recorded', () => {
    const list = errors();
    expect(list.map((f) => [f.ref, f.exitCode ?? null, f.command])).toEqual([
      ['terminal/term-1/1', 101, 'cargo build'],
      [`codex/${CODEX_ID}/1/p3`, 2, 'make build'],
      [`claude/${CLAUDE_ID}/1/p5`, null, '{\n  "file_path": "/nope.txt"\n}'],
      [`claude/${CLAUDE_ID}/1/p3`, 1, 'npm test'],
    ]);
    // the Read failure has no exit code: it counts by the agent's error flag
    expect(list[2]).toMatchObject({ isError: true, label: 'Read', output: 'File does not exist.' });
    expect(list.some((f) => f.command === 'ls')).toBe(false);
  });

  it('--global adds other workspaces; --cwd picks one; --since cuts by time', () => {
    expect(errors('--global').map((f) => f.ref)[0]).toBe('terminal/term-1/3');
    const r = runCli(['errors', '--cwd', elsewhere, '--json'], { env, cwd: work });
    expect((JSON.parse(r.stdout) as Failure[]).map((f) => f.ref)).toEqual(['terminal/term-1/3']);
    expect(errors('--since', '2026-11-30T11:30:00Z').map((f) => f.ref)).toEqual(['terminal/term-1/1']);
    expect(errors('codex').map((f) => f.ref)).toEqual([`codex/${CODEX_ID}/1/p3`]);
  });

  it('prints one line per failure with its ref, and says so when nothing failed', () => {
    const r = runCli(['errors', '--color', 'never'], { env, cwd: work });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^WHEN\s+REF\s+EXIT\s+COMMAND\s+LAST LINE$/);
    expect(lines[1]).toMatch(/terminal\/term-1\/1\s+101\s+cargo build\s+error\[E0425\]/);
    expect(lines[3]).toMatch(/claude\/11111111-2222-4333-8444-555555555555\/1\/p5\s+error\s+Read: /);
    const none = runCli(['errors', '--since', '2099-01-01'], { env, cwd: work });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/no failures since 2099-01-01/);
  });

  it('refuses a --cwd that is not a directory and an unknown target, in one line', () => {
    const r = runCli(['errors', '--cwd', join(tmp.path, 'missing')], { env, cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--cwd .*missing: no such directory/);
    const t = runCli(['errors', 'nosuch'], { env, cwd: work });
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/nosuch is not a source/);
  });

  it('gives the same list without the index', () => {
    expect(errors('--global', '--no-index')).toEqual(errors('--global'));
  });
});

describe('search --status uses the same definition', () => {
  const refs = (...args: string[]): string[] => {
    const r = runCli(['search', ...args, '--format', 'json', '--limit', '50'], { env, cwd: work });
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as { hits: { ref: string }[] }).hits.map((h) => h.ref).sort();
  };
  it('a turn with a failed tool output is a failure; a recorded exit 0 is not', () => {
    expect(refs('--status', 'failure')).toEqual([`claude/${CLAUDE_ID}/1`, `codex/${CODEX_ID}/1`, 'terminal/term-1/1', 'terminal/term-1/3'].sort());
    expect(refs('codex', '--status', 'success')).toEqual([`codex/${CODEX_ID}/2`]);
  });
});

describe('the facts behind them, as show --json prints them', () => {
  const show = (ref: string) => {
    const r = runCli(['show', ref, '--json'], { env, cwd: work });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { ended?: { state: string; evidence: string; part: number }; blocks: { part: number; kind: string; exitCode?: number; usage?: Record<string, number>; raw?: { lines: number[] } }[] };
  };
  it('Claude: exit code from the failed Bash result, usage once per message, interruption as evidence', () => {
    const t1 = show(`claude/${CLAUDE_ID}/1`);
    expect(t1.blocks.map((b) => b.exitCode ?? null)).toEqual([null, null, 1, null, null, null]);
    expect(t1.blocks[1]!.usage).toEqual({ input: 10, output: 5, cacheRead: 100, cacheWrite: 7 });
    expect(t1.blocks.map((b) => b.raw?.lines[0])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(t1.ended).toMatchObject({ state: 'completed', evidence: 'stop_reason: end_turn', part: 6 });
    const t2 = show(`claude/${CLAUDE_ID}/2`);
    expect(t2.ended).toMatchObject({ state: 'aborted', evidence: '[Request interrupted by user for tool use]', part: 2 });
  });
  it('Codex: the framed exit code, fresh input apart from the cache, task_complete and turn_aborted', () => {
    const t1 = show(`codex/${CODEX_ID}/1`);
    expect(t1.blocks.filter((b) => b.kind === 'tool_output').map((b) => b.exitCode)).toEqual([2, 0]);
    expect(t1.blocks.filter((b) => b.usage).map((b) => [b.part, b.usage])).toEqual([[6, { input: 100, output: 40, cacheRead: 200, reasoning: 8 }]]);
    expect(t1.ended).toMatchObject({ state: 'completed', evidence: 'task_complete' });
    expect(show(`codex/${CODEX_ID}/2`).ended).toMatchObject({ state: 'aborted', evidence: 'turn_aborted: interrupted' });
  });
});
