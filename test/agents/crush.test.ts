// Crush, on crush.db files built here in the documented schema (the npm package downloads its
// binary from outside the registry, so no genuine sessions): found through projects.json and by
// walking up from the current directory; `!cmd` shell blocks with their exit code; a sub-agent
// child session; a summary message; timestamps in seconds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { build } from './fixtures/crush.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-crush-');
});
afterEach(() => tmp.cleanup());

describe('crush', () => {
  it('finds project databases through projects.json, and reads shell blocks, tool pairs, thinking and the summary', () => {
    const project = join(tmp.path, 'svc');
    build(project, 'CI is red');
    mkdirSync(join(tmp.path, '.local', 'share', 'crush'), { recursive: true });
    writeFileSync(join(tmp.path, '.local', 'share', 'crush', 'projects.json'), JSON.stringify({ projects: [{ path: project, data_dir: '.crush', last_accessed: '2026-11-30T10:00:00Z' }] }));
    const env = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'crush', '--global', '--json'], { env });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'c1', title: 'CI is red', cwd: project, turns: 1, updated_at: new Date(1796119300 * 1000).toISOString() })]);
    const turn = JSON.parse(runCli(['show', 'crush/c1/1', '--json'], { env }).stdout) as { blocks: Record<string, unknown>[] };
    expect(turn.blocks.map((b) => b.kind)).toEqual(['user', 'tool_call', 'tool_output', 'thinking', 'tool_call', 'tool_output', 'assistant', 'compaction']);
    expect(turn.blocks[2]).toMatchObject({ label: 'shell_command', text: 'FAIL pkg/a', isError: true, exitCode: 1 });
    // message rows by rowid (m2 is the second row); finish end_turn on m5 ends the turn
    expect(turn.blocks[1]!.raw).toMatchObject({ table: 'messages', column: 'rowid', ids: [2] });
    expect((turn as { ended?: unknown }).ended).toMatchObject({ state: 'completed', evidence: 'finish: end_turn', part: 7 });
    expect(turn.blocks[5]).toMatchObject({ label: 'view', callId: 'tc1' });
    expect(runCli(['copy', 'crush', 'out', '--print'], { env }).stdout.trimEnd()).toBe('TestA expects an env var CI does not set.');
  });

  it('finds the database above the current directory when no index names it', () => {
    const project = join(tmp.path, 'lib');
    build(project, 'walk up');
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    const env = cleanEnv(tmp.path);
    const listed = JSON.parse(runCli(['sessions', 'crush', '--global', '--json'], { env, cwd: join(project, 'src', 'deep') }).stdout) as { title: string }[];
    expect(listed.map((s) => s.title)).toEqual(['walk up']);
  });
});
