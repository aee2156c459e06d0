// Zed agent threads, on a threads.db built here in the schema of Zed's crates/agent/src/db.rs (no
// genuine one: Zed is an editor): a zstd body in the current 0.3.0 shape (text, thinking, a
// mention left out, a tool use paired with its result by id), an older JSON body in the
// role/segments shape, a sub-agent thread, a damaged body, and the data-folder variables.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { build, current, legacy } from './fixtures/zed.js';

type Rec = Record<string, unknown>;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-zed-');
});
afterEach(() => tmp.cleanup());

describe('zed', () => {
  it('lists threads with titles and workspace folders, reads zstd and JSON bodies, pairs tool results', () => {
    const work = join(tmp.path, 'proj');
    mkdirSync(work);
    build(join(tmp.path, '.local', 'share', 'zed'), work);
    const env = cleanEnv(tmp.path);
    const here = JSON.parse(runCli(['sessions', 'zed', '--json'], { env, cwd: work }).stdout) as Rec[];
    expect(here).toEqual([expect.objectContaining({ id: 'th-current', title: 'Fix the parser', cwd: work, turns: 1 })]);

    const shown = runCli(['show', 'zed/th-current/1', '--json'], { env, cwd: work });
    const blocks = (JSON.parse(shown.stdout) as { blocks: Rec[] }).blocks;
    expect(blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'assistant', 'tool_call', 'tool_output', 'assistant']);
    expect(blocks[0]!.text).toBe('why does the parser fail?');
    expect(blocks[3]).toMatchObject({ label: 'read_file', callId: 'toolu_1' });
    expect(blocks[4]).toMatchObject({ text: 'fn parse() { unwrap() }', label: 'read_file', callId: 'toolu_1' });
    expect(runCli(['copy', 'zed', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('It unwraps an error: handle it instead.');

    const old = (JSON.parse(runCli(['show', 'zed/th-legacy/1', '--json'], { env }).stdout) as { blocks: Rec[] }).blocks;
    expect(old.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output']);
    expect(old[3]).toMatchObject({ text: 'permission denied', label: 'list_directory', isError: true });

    const all = JSON.parse(runCli(['sessions', 'zed', '--global', '--json'], { env }).stdout) as Rec[];
    expect(all.map((s) => s.id).sort()).toEqual(['th-current', 'th-damaged', 'th-legacy']);
    const damaged = runCli(['show', 'zed/th-damaged', '--json'], { env });
    expect(damaged.stderr).toMatch(/cannot read Zed thread th-damaged .*damaged/);
    expect(damaged.stderr).not.toMatch(/\n\s+at /);
  });

  it('--raw prints the values of the thread body behind each block, saying when the row was decompressed', () => {
    build(join(tmp.path, '.local', 'share', 'zed'), tmp.path);
    const env = cleanEnv(tmp.path);
    const raw = (ref: string, json = false) => runCli(['show', ref, '--raw', ...(json ? ['--json'] : [])], { env });
    const user = raw('zed/th-current/1/p1');
    expect(user.stdout).toBe(JSON.stringify(current.messages[0]) + '\n');
    expect(user.stderr).toBe('sivtr: the raw record was decompressed from the zstd-compressed `data` column of threads row th-current\n');
    const agent = current.messages[1] as { Agent: { content: unknown[]; tool_results: Record<string, unknown> } };
    // thinking, text, the call, its result: content items by index, the result by its key
    expect(raw('zed/th-current/1/p2-5').stdout).toBe([...agent.Agent.content, agent.Agent.tool_results.toolu_1].map((v) => JSON.stringify(v)).join('\n') + '\n');
    const j = JSON.parse(raw('zed/th-current/1/p5', true).stdout) as { locators: unknown[]; records: string[] };
    expect(j.locators).toEqual([{ db: join(tmp.path, '.local', 'share', 'zed', 'threads', 'threads.db'), table: 'threads', column: 'id', ids: ['th-current'], document: { column: 'data', pointers: ['/messages/1/Agent/tool_results/toolu_1'], compression: 'zstd' } }]);
    // an uncompressed legacy body: segments, tool uses and results by index, and no note
    const old = raw('zed/th-legacy/1');
    expect(old.stderr).toBe('');
    const m = legacy.messages;
    expect(old.stdout).toBe([m[0], m[1]!.segments[0], m[1]!.tool_uses[0], m[1]!.tool_results[0]].map((v) => JSON.stringify(v)).join('\n') + '\n');
  });

  it('is searchable through the index, the body decompressed', () => {
    build(join(tmp.path, '.local', 'share', 'zed'), tmp.path);
    const env = cleanEnv(tmp.path);
    expect(runCli(['search', 'zed', 'unwraps', '--format', 'refs'], { env }).stdout).toMatch(/^zed\/th-curre\w*\/1/m);
  });

  it('looks in FLATPAK_XDG_DATA_HOME, then XDG_DATA_HOME', () => {
    build(join(tmp.path, 'flatpak', 'zed'), tmp.path);
    build(join(tmp.path, 'xdg', 'zed'), tmp.path);
    const count = (extra: Record<string, string>): number => (JSON.parse(runCli(['sessions', 'zed', '--global', '--json'], { env: cleanEnv(tmp.path, extra) }).stdout) as unknown[]).length;
    expect(count({ FLATPAK_XDG_DATA_HOME: join(tmp.path, 'flatpak') })).toBe(3);
    expect(count({ XDG_DATA_HOME: join(tmp.path, 'xdg') })).toBe(3);
    expect(count({})).toBe(0);
  });
});
