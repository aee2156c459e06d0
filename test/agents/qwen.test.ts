// Qwen Code, on hand-made files shaped like the genuine ones in fixtures/real/qwen-*: a rewound
// branch, a title record, the overrides, and the robustness rules (NUL padding, unknown records,
// a half-written last line, a malformed line in the middle).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

type Rec = Record<string, unknown>;
const SID = '0f3c2a10-1111-4222-8333-944455556666';

let tmp: ReturnType<typeof tempDir>;
let n = 0;
const at = (): string => new Date(Date.UTC(2026, 10, 30, 10, 0, n++)).toISOString();
const rec = (uuid: string, parent: string | null, type: string, extra: Rec, cwd: string): Rec => ({ uuid, parentUuid: parent, sessionId: SID, timestamp: at(), type, cwd, version: '0.24.4', ...extra });
const user = (text: string): Rec => ({ provenance: 'real_user', message: { role: 'user', parts: [{ text }] } });
const model = (...parts: Rec[]): Rec => ({ message: { role: 'model', parts } });

function session(cwd: string): string {
  n = 0;
  const lines = [
    rec('u1', null, 'user', user('first question'), cwd),
    rec('s1', 'u1', 'system', { subtype: 'ui_telemetry', systemPayload: { uiEvent: {} } }, cwd),
    rec('a1', 's1', 'assistant', model({ text: 'thinking it over', thought: true }, { text: 'Let me look.' }, { functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'ls' } } }), cwd),
    rec('t1', 'a1', 'tool_result', { message: { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'Command: ls\nOutput: a.txt' } } }] }, toolCallResult: { callId: 'c1', status: 'success', resultDisplay: { type: 'shell_result', output: 'a.txt', exitCode: 0 } } }, cwd),
    rec('a2', 't1', 'assistant', model({ text: 'There is a.txt.' }), cwd),
    rec('a3', 'a2', 'assistant', model({ text: 'Anything else?' }), cwd),
    // an abandoned branch: asked, then rewound to a3
    rec('u2', 'a3', 'user', user('abandoned question'), cwd),
    rec('a4', 'u2', 'assistant', model({ text: 'abandoned answer' }), cwd),
    rec('x1', 'a4', 'something_new', { payload: 1 }, cwd),
    rec('u3', 'a3', 'user', user('second question'), cwd),
    rec('a5', 'u3', 'assistant', model({ text: 'second answer' }), cwd),
    rec('m1', 'a5', 'system', { subtype: 'custom_title', systemPayload: { customTitle: 'Named by hand', titleSource: 'manual' } }, cwd),
  ];
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  // a malformed line and NUL padding mid-file, then a half-written last line
  return text.replace('\n', '\n{"broken\n\0\0\0\0\n') + '\n' + JSON.stringify(rec('u4', 'a5', 'user', user('still typing'), cwd)).slice(0, 40);
}

beforeEach(() => {
  tmp = tempDir('sivtr-qwen-');
});
afterEach(() => tmp.cleanup());

function write(root: string, cwd: string): string {
  const dir = join(root, 'projects', cwd.replaceAll('/', '-'), 'chats');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${SID}.jsonl`);
  writeFileSync(file, session(cwd));
  return file;
}

describe('qwen', () => {
  it('follows the live branch, keeps whole replies and thinking, pairs tool output by id, and titles from custom_title', () => {
    const home = tmp.path;
    const work = join(home, 'proj');
    mkdirSync(work);
    write(join(home, '.qwen'), work);
    const env = cleanEnv(home);
    const list = runCli(['sessions', 'qwen', '--json'], { env, cwd: work });
    expect(list.code).toBe(0);
    const sessions = JSON.parse(list.stdout) as { id: string; title: string; cwd: string; turns: number }[];
    expect(sessions).toEqual([expect.objectContaining({ id: SID, title: 'Named by hand', cwd: work, turns: 2 })]);

    const shown = runCli(['show', `qwen/${SID}`, '--json'], { env, cwd: work });
    expect(shown.code).toBe(0);
    const turns = JSON.parse(shown.stdout) as { blocks: { kind: string; text: string; label?: string; callId?: string }[] }[];
    expect(turns.map((t) => t.blocks.map((b) => b.kind))).toEqual([
      ['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'assistant', 'assistant'],
      ['user', 'assistant'],
    ]);
    expect(turns[0]!.blocks[4]).toMatchObject({ text: 'a.txt', label: 'run_shell_command', callId: 'c1' });
    expect(shown.stdout).not.toContain('abandoned');

    const out = runCli(['copy', 'qwen', 'out', '2', '--print'], { env, cwd: work });
    expect(out.stdout.trimEnd()).toBe('There is a.txt.\n\nAnything else?');
    // one note for the two unreadable lines; the half-written tail is a writer still at work
    expect(shown.stderr).toMatch(/skipped 2 unreadable lines?/);
  });

  it('honours QWEN_RUNTIME_DIR, then QWEN_HOME, and filters by workspace', () => {
    const home = tmp.path;
    const work = join(home, 'proj');
    const other = join(home, 'other');
    mkdirSync(work);
    mkdirSync(other);
    write(join(home, 'runtime'), work);
    const env = cleanEnv(home, { QWEN_RUNTIME_DIR: join(home, 'runtime'), QWEN_HOME: join(home, 'cfg') });
    expect(JSON.parse(runCli(['sessions', 'qwen', '--json'], { env, cwd: work }).stdout)).toHaveLength(1);
    expect(JSON.parse(runCli(['sessions', 'qwen', '--json'], { env, cwd: other }).stdout)).toHaveLength(0);
    expect(JSON.parse(runCli(['sessions', 'qwen', '--json', '--global'], { env, cwd: other }).stdout)).toHaveLength(1);
    const viaHome = cleanEnv(home, { QWEN_HOME: join(home, 'runtime') });
    expect(JSON.parse(runCli(['sessions', 'qwen', '--json', '--global'], { env: viaHome }).stdout)).toHaveLength(1);
  });

  it('is detected by `import <path>` as Qwen, not as Claude Code', () => {
    const file = write(join(tmp.path, '.qwen'), tmp.path);
    const r = runCli(['import', file, '--json'], { env: cleanEnv(tmp.path) });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { source: string }).source).toBe('qwen');
  });
});
