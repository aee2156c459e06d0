// Crush, on crush.db files built here in the documented schema (the npm package downloads its
// binary from outside the registry, so no genuine sessions): found through projects.json and by
// walking up from the current directory; `!cmd` shell blocks with their exit code; a sub-agent
// child session; a summary message; timestamps in seconds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-crush-');
});
afterEach(() => tmp.cleanup());

const parts = (...p: { type: string; data: unknown }[]): string => JSON.stringify(p);

function build(project: string, title: string): void {
  mkdirSync(join(project, '.crush'), { recursive: true });
  const db = new Database(join(project, '.crush', 'crush.db'));
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT, message_count INTEGER, created_at INTEGER, updated_at INTEGER, summary_message_id TEXT);
    CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, model TEXT, created_at INTEGER, updated_at INTEGER, finished_at INTEGER, is_summary_message INTEGER DEFAULT 0);`);
  db.prepare('INSERT INTO sessions (id, parent_session_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run('c1', null, title, 1796119200, 1796119300);
  db.prepare('INSERT INTO sessions (id, parent_session_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run('c2', 'c1', 'agent task', 1796119210, 1796119220);
  const m = db.prepare('INSERT INTO messages (id, session_id, role, parts, created_at, finished_at, is_summary_message) VALUES (?, ?, ?, ?, ?, ?, ?)');
  m.run('m1', 'c1', 'user', parts({ type: 'text', data: { text: 'why is CI red?' } }), 1796119201, null, 0);
  m.run('m2', 'c1', 'user', parts({ type: 'shell_command', data: { command: 'go test ./...', output: 'FAIL pkg/a', exit_code: 1 } }), 1796119202, null, 0);
  m.run('m3', 'c1', 'assistant', parts({ type: 'reasoning', data: { thinking: 'look at pkg/a' } }, { type: 'tool_call', data: { id: 'tc1', name: 'view', input: '{"file_path":"a_test.go"}', finished: true } }, { type: 'finish', data: { reason: 'tool_use', time: 1796119203 } }), 1796119203, 1796119203, 0);
  m.run('m4', 'c1', 'tool', parts({ type: 'tool_result', data: { tool_call_id: 'tc1', name: 'view', content: 'func TestA(t *testing.T) {}', is_error: false } }), 1796119204, 1796119204, 0);
  m.run('m5', 'c1', 'assistant', parts({ type: 'text', data: { text: 'TestA expects an env var CI does not set.' } }, { type: 'finish', data: { reason: 'end_turn', time: 1796119205 } }), 1796119205, 1796119205, 0);
  m.run('m6', 'c1', 'assistant', parts({ type: 'text', data: { text: 'The user asked why CI is red; TestA needs an env var.' } }), 1796119206, 1796119206, 1);
  db.close();
}

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
