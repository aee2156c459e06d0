// Hermes Agent, on a state.db built here in the documented schema (no genuine one: Hermes is a
// Python program): a compression chain read as one conversation, a rewound row, hidden
// scaffolding, a curator prompt, a sub-agent session, a named profile and HERMES_HOME.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-hermes-');
});
afterEach(() => tmp.cleanup());

function build(path: string, cwd: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, parent_session_id TEXT, started_at REAL, ended_at REAL, end_reason TEXT, cwd TEXT, title TEXT, archived INTEGER DEFAULT 0);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL, reasoning TEXT, active INTEGER DEFAULT 1, display_kind TEXT);`);
  const s = db.prepare('INSERT INTO sessions (id, source, model, parent_session_id, started_at, ended_at, end_reason, cwd, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  s.run('s1', 'cli', 'm', null, 1796119200, 1796119300, 'compression', cwd, 'Clean the tree');
  s.run('s2', 'cli', 'm', 's1', 1796119300, null, null, cwd, null);
  s.run('s3', 'tool', 'm', 's1', 1796119250, 1796119260, null, cwd, 'subagent work');
  const m = db.prepare('INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, active, display_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  m.run('s1', 'system', 'You are Hermes.', null, null, null, 1796119200, 1, null);
  m.run('s1', 'user', 'show git status', null, null, null, 1796119201, 1, null);
  m.run('s1', 'assistant', '', null, JSON.stringify([{ id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"git status"}' } }]), null, 1796119202, 1, null);
  m.run('s1', 'tool', JSON.stringify({ output: 'nothing to commit', exit_code: 0 }), 'call_1', null, 'terminal', 1796119203, 1, null);
  m.run('s1', 'assistant', 'an answer that was rewound', null, null, null, 1796119204, 0, null);
  m.run('s1', 'assistant', 'Working tree is clean.', null, null, null, 1796119205, 1, null);
  m.run('s1', 'user', 'Review the conversation above and decide what to remember.', null, null, null, 1796119206, 1, null);
  m.run('s1', 'assistant', 'Nothing to save.', null, null, null, 1796119207, 1, null);
  m.run('s2', 'user', 'Summary: the user checked git status; the tree was clean.', null, null, null, 1796119300, 1, null);
  m.run('s2', 'user', 'now run the tests', null, null, null, 1796119301, 1, null);
  m.run('s2', 'assistant', 'scaffolding', null, null, null, 1796119302, 1, 'hidden');
  m.run('s2', 'assistant', 'All 12 tests pass.', null, null, null, 1796119303, 1, null);
  m.run('s3', 'user', 'subagent task', null, null, null, 1796119251, 1, null);
  db.close();
}

describe('hermes', () => {
  it('reads a compression chain as one conversation: the summary is a compaction, rewound and hidden rows and curator turns are left out', () => {
    const work = join(tmp.path, 'app');
    mkdirSync(work);
    build(join(tmp.path, '.hermes', 'state.db'), work);
    const env = cleanEnv(tmp.path);
    const listed = runCli(['sessions', 'hermes', '--json'], { env, cwd: work });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 's1', title: 'Clean the tree', cwd: work, turns: 2 })]);
    const turns = JSON.parse(runCli(['show', 'hermes/s1', '--json'], { env, cwd: work }).stdout) as { blocks: { kind: string; text: string; label?: string }[] }[];
    expect(turns.map((t) => t.blocks.map((b) => b.kind))).toEqual([
      ['user', 'tool_call', 'tool_output', 'assistant', 'compaction'],
      ['user', 'assistant'],
    ]);
    expect(turns[0]!.blocks[2]).toMatchObject({ label: 'terminal', text: 'nothing to commit', exitCode: 0, raw: { table: 'messages', column: 'rowid' } });
    const all = JSON.stringify(turns);
    for (const gone of ['rewound', 'Review the conversation', 'Nothing to save', 'scaffolding', 'subagent task']) expect(all).not.toContain(gone);
    // the later link of the chain answers to its own id too
    expect(runCli(['copy', 'hermes', 'out', '--session', 's2', '--print'], { env, cwd: work }).stdout.trimEnd()).toBe('All 12 tests pass.');
  });

  it('reads named profiles and HERMES_HOME', () => {
    build(join(tmp.path, 'h', 'profiles', 'work', 'state.db'), tmp.path);
    const env = cleanEnv(tmp.path, { HERMES_HOME: join(tmp.path, 'h') });
    expect(JSON.parse(runCli(['sessions', 'hermes', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
