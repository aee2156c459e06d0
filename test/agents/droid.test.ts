// Factory Droid, on hand-made files shaped like the genuine ones in fixtures/real/droid-*: a
// renamed session (first line rewritten), injected context, a failed shell call, a turn still
// running, FACTORY_HOME_OVERRIDE, and the robustness rules.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

type Rec = Record<string, unknown>;
const SID = 'a1b2c3d4-0000-4000-8000-000000000001';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-droid-');
});
afterEach(() => tmp.cleanup());

let t = 0;
const ts = (): string => new Date(Date.UTC(2026, 10, 30, 9, 0, t++)).toISOString();
const msg = (id: string, parentId: string | undefined, role: string, content: unknown[]): Rec => ({ type: 'message', id, ...(parentId ? { parentId } : {}), timestamp: ts(), message: { role, content } });

function write(factory: string, cwd: string, title: string): void {
  t = 0;
  const dir = join(factory, 'sessions', cwd.replaceAll('/', '-'));
  mkdirSync(dir, { recursive: true });
  const lines: unknown[] = [
    { type: 'session_start', id: SID, title, owner: 'x', version: 2, cwd },
    msg('context-p1', undefined, 'user', [{ type: 'text', text: '<system-reminder>\ntools…\n</system-reminder>' }]),
    msg('p1', 'context-p1', 'user', [{ type: 'text', text: 'build it' }]),
    msg('a1', 'p1', 'assistant', [{ type: 'text', text: 'Running the build.' }, { type: 'tool_use', id: 'c1', name: 'Execute', input: { command: 'make' } }]),
    msg('r1', 'a1', 'user', [{ type: 'tool_result', tool_use_id: 'c1', is_error: false, content: 'make: *** No rule\n\n\n[Process exited with code 2]' }]),
    msg('a2', 'r1', 'assistant', [{ type: 'text', text: 'The build failed: there is no Makefile.' }]),
    { type: 'brand_new_record', x: 1 },
    { type: 'agent_turn_outcome', turnId: 'p1', reason: 'completed' },
    msg('p2', 'a2', 'user', [{ type: 'text', text: 'then write one' }]),
    msg('a3', 'p2', 'assistant', [{ type: 'tool_use', id: 'c2', name: 'Create', input: { file_path: 'Makefile' } }]),
  ];
  writeFileSync(join(dir, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n\0\0\0\n{"type":"mess');
}

describe('droid', () => {
  it('reads title, cwd, turns, tool status; a running turn is not the last completed one', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    write(join(tmp.path, '.factory'), work, 'Renamed by the user');
    const env = cleanEnv(tmp.path);
    const listed = JSON.parse(runCli(['sessions', 'droid', '--json'], { env, cwd: work }).stdout) as Rec[];
    expect(listed).toEqual([expect.objectContaining({ id: SID, title: 'Renamed by the user', cwd: work, turns: 2 })]);
    const shown = runCli(['show', `droid/${SID}/1`, '--json'], { env, cwd: work });
    const blocks = (JSON.parse(shown.stdout) as { blocks: Rec[] }).blocks;
    expect(blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output', 'assistant']);
    expect(blocks[3]).toMatchObject({ text: 'make: *** No rule', label: 'Execute', callId: 'c1' });
    // turn 2 has no outcome yet: `copy droid out` is turn 1's reply
    const out = runCli(['copy', 'droid', 'out', '--print'], { env, cwd: work });
    expect(out.stdout.trimEnd()).toBe('The build failed: there is no Makefile.');
    expect(shown.stderr).toMatch(/skipped 1 unreadable line/);
  });

  it('honours FACTORY_HOME_OVERRIDE as the home that holds .factory', () => {
    write(join(tmp.path, 'alt', '.factory'), tmp.path, 'x');
    const env = cleanEnv(tmp.path, { FACTORY_HOME_OVERRIDE: join(tmp.path, 'alt') });
    expect(JSON.parse(runCli(['sessions', 'droid', '--global', '--json'], { env }).stdout)).toHaveLength(1);
    expect(JSON.parse(runCli(['sessions', 'droid', '--global', '--json'], { env: cleanEnv(tmp.path) }).stdout)).toHaveLength(0);
  });

  it('removes the colour escapes a tool forced into its output', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    const dir = join(tmp.path, '.factory', 'sessions', work.replaceAll('/', '-'));
    mkdirSync(dir, { recursive: true });
    const lines = [
      { type: 'session_start', id: SID, title: 'colours', cwd: work },
      msg('p1', undefined, 'user', [{ type: 'text', text: 'run the tests' }]),
      msg('a1', 'p1', 'assistant', [{ type: 'tool_use', id: 'c1', name: 'Execute', input: { command: 'npm test' } }]),
      msg('r1', 'a1', 'user', [{ type: 'tool_result', tool_use_id: 'c1', content: '\u001b[32m✓\u001b[39m 3 passed \u001b[1m\u001b[31m1 failed\u001b[22m\u001b[39m' }]),
      msg('a2', 'r1', 'assistant', [{ type: 'text', text: 'One fails.' }]),
    ];
    writeFileSync(join(dir, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const turn = JSON.parse(runCli(['show', `droid/${SID}/1`, '--json'], { env: cleanEnv(tmp.path), cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
    expect(turn.blocks.find((b) => b.kind === 'tool_output')!.text).toBe('✓ 3 passed 1 failed');
  });
  it('shows the session token total Droid keeps in <id>.settings.json (genuine droid 0.215.0 sessions), in overview only', () => {
    const set = join(ROOT, 'fixtures', 'real', 'droid-0.215.0');
    const run = JSON.parse(readFileSync(join(set, 'run.json'), 'utf8')) as { ids: { main: string; fork: string } };
    cpSync(join(set, 'home'), tmp.path, { recursive: true });
    const env = cleanEnv(tmp.path);
    const facts = (id: string) => JSON.parse(runCli(['overview', `droid/${id}`, '--json'], { env }).stdout) as { tokens?: unknown; tokensScope?: string };
    // the mock reports 120 prompt and 25 completion tokens a request, 150,000 prompt tokens for the
    // [big-usage] answer: the main session made 8 requests (one of them that answer), the fork 2
    expect(facts(run.ids.main)).toMatchObject({ tokens: { input: 7 * 120 + 150000, output: 8 * 25, cacheRead: 0, cacheWrite: 0 }, tokensScope: 'session' });
    expect(facts(run.ids.fork)).toMatchObject({ tokens: { input: 2 * 120, output: 2 * 25, cacheRead: 0, cacheWrite: 0 }, tokensScope: 'session' });
    const turns = JSON.parse(runCli(['turns', `droid/${run.ids.main}`, '--json'], { env }).stdout) as { tokens?: unknown }[];
    expect(turns.every((t) => t.tokens === undefined)).toBe(true);
  });
});
