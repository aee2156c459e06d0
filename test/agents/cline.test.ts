// Cline, Roo Code and the legacy Kilo Code extension: one task-folder reader, three homes. The
// tasks are hand-made in the two shapes Cline has written: native tool_use/tool_result blocks,
// and the older XML tool calls in the assistant's text with `[tool] Result:` user texts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { nativeTask, task, xmlTask } from './fixtures/cline.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-cline-');
});
afterEach(() => tmp.cleanup());

describe('cline, roo and kilo (legacy extension)', () => {
  it('reads native tool blocks: <task>/<feedback> prompts, the attempt_completion result as the reply, cwd from the environment', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    const storage = join(tmp.path, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
    task(storage, '1764000000000', nativeTask(work), 1764000000000);
    const e = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'cline', '--json'], { env: e, cwd: work });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: '1764000000000', title: 'why does the build fail?', cwd: work, turns: 2 })]);
    const turns = JSON.parse(runCli(['show', 'cline/1764000000000', '--json'], { env: e, cwd: work }).stdout) as { blocks: { kind: string; text: string; label?: string }[] }[];
    expect(turns[0]!.blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output', 'assistant', 'assistant']);
    expect(turns[0]!.blocks[3]).toMatchObject({ label: 'execute_command', text: 'error TS2304: Cannot find name x' });
    expect(turns[1]!.blocks[0]!.text).toBe('then fix it');
    // blocks name their message in the task's JSON; attempt_completion is the turn's end
    expect(turns[0]!.blocks.map((b) => ((b as { raw?: { pointers: string[] } }).raw?.pointers ?? [])[0])).toEqual(['/0', '/1', '/1', '/2', '/3', '/3']);
    expect((turns[0] as { ended?: unknown }).ended).toMatchObject({ state: 'completed', evidence: 'attempt_completion', part: 6 });
    expect((turns[1] as { ended?: unknown }).ended).toBeUndefined();
    // turn 2 is still at work (a tool call without result): turn 1 is the last completed one
    const out = runCli(['copy', 'cline', 'out', '--print'], { env: e, cwd: work });
    // the whole reply: every assistant text after the last tool activity, the completion's result included
    expect(out.stdout.trimEnd()).toBe('A missing declaration.\n\nThe build fails because `x` is not declared in src/a.ts.');
  });

  it('reads the tokens Cline records per assistant message (metrics.tokens: prompt includes the cached part)', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    const storage = join(tmp.path, '.cline', 'data');
    const messages = nativeTask(work) as Record<string, unknown>[];
    messages[1]!.metrics = { tokens: { prompt: 1200, completion: 80, cached: 1000 }, cost: 0.01 };
    messages[3]!.metrics = { tokens: { prompt: 1500, completion: 40, cached: 1200 } };
    messages[5]!.metrics = { tokens: { prompt: 1700, completion: 30, cached: 0 } };
    task(storage, 'metered', messages, 1764000000000);
    const e = cleanEnv(tmp.path);
    const facts = JSON.parse(runCli(['overview', 'cline/metered', '--json'], { env: e, cwd: work }).stdout) as { tokens?: unknown };
    // a cache re-read is not input: 200 + 300 + 1700 fresh, 1000 + 1200 + 0 read from the cache
    expect(facts.tokens).toEqual({ input: 2200, output: 150, cacheRead: 2200 });
    const turns = JSON.parse(runCli(['turns', 'cline/metered', '--json'], { env: e, cwd: work }).stdout) as { tokens?: unknown }[];
    expect(turns.map((t) => t.tokens)).toEqual([{ input: 500, output: 120, cacheRead: 2200 }, { input: 1700, output: 30, cacheRead: 0 }]);
    // a task written before metrics existed records none: no figure, never a zero
    task(storage, 'old', xmlTask(), 1700000000000);
    expect((JSON.parse(runCli(['overview', 'cline/old', '--json'], { env: e, cwd: work }).stdout) as { tokens?: unknown }).tokens).toBeUndefined();
  });

  it('reads the XML era: tool calls inside the text, results as user text, thinking apart', () => {
    const storage = join(tmp.path, '.cline', 'data');
    task(storage, 'old', xmlTask(), 1700000000000);
    const e = cleanEnv(tmp.path);
    const turn = JSON.parse(runCli(['show', 'cline/old/1', '--json'], { env: e }).stdout) as { blocks: { kind: string; text: string; label?: string }[] };
    expect(turn.blocks.map((b) => [b.kind, b.label ?? ''])).toEqual([['user', ''], ['thinking', ''], ['assistant', ''], ['tool_call', 'list_files'], ['tool_output', 'list_files'], ['assistant', '']]);
    expect(turn.blocks.at(-1)!.text).toBe('There are two files: a.txt and b.txt.');
    expect(JSON.parse(runCli(['sessions', 'cline', '--global', '--json'], { env: cleanEnv(tmp.path, { CLINE_DIR: join(tmp.path, 'nowhere') }) }).stdout)).toEqual([]);
  });

  it('finds Roo Code and legacy Kilo Code tasks in their own extensions, titles from the index', () => {
    const roo = join(tmp.path, '.config', 'VSCodium', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline');
    task(roo, 'r1', xmlTask(), 1700000000000);
    mkdirSync(join(roo, 'state'), { recursive: true });
    writeFileSync(join(roo, 'state', 'taskHistory.json'), JSON.stringify([{ id: 'r1', ts: 1700000000000, task: 'List the files please', workspace: '/srv/app' }]));
    const kilo = join(tmp.path, '.config', 'Cursor', 'User', 'globalStorage', 'kilocode.kilo-code');
    task(kilo, 'k1', xmlTask(), 1700000000000);
    const e = cleanEnv(tmp.path);
    expect(JSON.parse(runCli(['sessions', 'roo', '--global', '--json'], { env: e }).stdout)).toEqual([expect.objectContaining({ id: 'r1', title: 'List the files please', cwd: '/srv/app' })]);
    expect(JSON.parse(runCli(['sessions', 'kilo', '--global', '--json'], { env: e }).stdout)).toEqual([expect.objectContaining({ id: 'k1', title: 'list the files' })]);
    expect(runCli(['copy', 'kilo', 'out', '--session', 'k1', '--print'], { env: e }).stdout.trimEnd()).toBe('There are two files: a.txt and b.txt.');
    expect(JSON.parse(runCli(['sessions', 'cline', '--global', '--json'], { env: e }).stdout)).toEqual([]);
  });

  it('is searchable, and a task added later is found by the next search (the index watches every storage)', () => {
    const storage = join(tmp.path, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
    task(storage, 't1', xmlTask(), 1700000000000);
    const e = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
    expect(runCli(['search', 'cline', 'a.txt', '--format', 'refs'], { env: e }).stdout.trim()).toMatch(/^cline\/t1\/1/);
    // a second editor's storage appears after the first search
    const other = join(tmp.path, '.config', 'VSCodium', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
    task(other, 't9', [{ role: 'user', content: [{ type: 'text', text: '<task>\nzebra question\n</task>' }] }, { role: 'assistant', content: [{ type: 'text', text: 'zebra answer' }] }], 1700000001000);
    expect(runCli(['search', 'cline', 'zebra', '--format', 'refs'], { env: e }).stdout).toMatch(/^cline\/t9\/1/m);
  });
});
