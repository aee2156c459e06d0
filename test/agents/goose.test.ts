// Goose, on a sessions.db built here in the documented schema (no genuine one: the binary is not
// on npm): tool responses in user rows, rows the user never saw, sub-agent sessions, the
// GOOSE_PATH_ROOT override, and a database in WAL mode with rows not yet checkpointed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-goose-');
});
afterEach(() => tmp.cleanup());

function build(path: string, cwd: string): Database.Database {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, description TEXT, session_type TEXT, working_dir TEXT, created_at TIMESTAMP, updated_at TIMESTAMP);
    CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER, timestamp INTEGER, tokens INTEGER, metadata_json TEXT);`);
  const s = db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)');
  s.run('20261130_1', 'fix lint', '', 'user', cwd, '2026-11-30 10:00:00', '2026-11-30 10:01:00');
  s.run('20261130_2', 'helper', '', 'sub_agent', cwd, '2026-11-30 10:00:30', '2026-11-30 10:00:40');
  const m = db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)');
  const vis = JSON.stringify({ userVisible: true, agentVisible: true });
  m.run('20261130_1', 'user', JSON.stringify([{ type: 'text', text: 'fix eslint errors' }]), 1796119200, vis);
  m.run('20261130_1', 'assistant', JSON.stringify([{ type: 'text', text: 'Running eslint.' }, { type: 'toolRequest', id: 't1', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'npx eslint . --fix' } } } }]), 1796119201, vis);
  m.run('20261130_1', 'user', JSON.stringify([{ type: 'toolResponse', id: 't1', toolResult: { status: 'success', value: { content: [{ type: 'text', text: '0 problems' }] } } }]), 1796119202, vis);
  m.run('20261130_1', 'user', JSON.stringify([{ type: 'text', text: 'summary for the model only' }]), 1796119203, JSON.stringify({ userVisible: false, agentVisible: true }));
  m.run('20261130_1', 'assistant', JSON.stringify([{ type: 'thinking', thinking: 'all clean' }, { type: 'text', text: 'All lint errors fixed.' }, { type: 'redactedThinking', data: 'x' }]), 1796119204, vis);
  return db;
}

describe('goose', () => {
  it('reads sessions.db (WAL, unchecked-in rows included): tool responses paired, hidden rows and sub-agents left out', () => {
    const work = join(tmp.path, 'app');
    mkdirSync(work);
    const db = build(join(tmp.path, '.local', 'share', 'goose', 'sessions', 'sessions.db'), work);
    db.pragma('wal_autocheckpoint = 0');
    try {
      const env = cleanEnv(tmp.path);
      const listed = runCli(['sessions', 'goose', '--json'], { env, cwd: work });
      expect(listed.stderr).toBe('');
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: '20261130_1', title: 'fix lint', cwd: work, turns: 1 })]);
      const turn = JSON.parse(runCli(['show', 'goose/20261130_1/1', '--json'], { env, cwd: work }).stdout) as { blocks: Record<string, unknown>[] };
      expect(turn.blocks.map((b) => b.kind)).toEqual(['user', 'assistant', 'tool_call', 'tool_output', 'thinking', 'assistant']);
      expect(turn.blocks[3]).toMatchObject({ label: 'developer__shell', callId: 't1', text: '0 problems', raw: { table: 'messages', column: 'rowid' } });
      expect(JSON.stringify(turn)).not.toContain('summary for the model only');
      expect(runCli(['copy', 'goose', 'out', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('All lint errors fixed.');
    } finally {
      db.close();
    }
  });

  it('honours GOOSE_PATH_ROOT', () => {
    build(join(tmp.path, 'g', 'data', 'sessions', 'sessions.db'), tmp.path).close();
    const env = cleanEnv(tmp.path, { GOOSE_PATH_ROOT: join(tmp.path, 'g') });
    expect(JSON.parse(runCli(['sessions', 'goose', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
