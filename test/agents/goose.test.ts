// Goose, on a sessions.db built here in the documented schema (no genuine one: the binary is not
// on npm): tool responses in user rows, rows the user never saw, sub-agent sessions, the
// GOOSE_PATH_ROOT override, and a database in WAL mode with rows not yet checkpointed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { build } from './fixtures/goose.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-goose-');
});
afterEach(() => tmp.cleanup());

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

  it('reads each request\'s tokens from usage_ledger onto the response it produced; a compaction request is left out', () => {
    const work = join(tmp.path, 'app');
    mkdirSync(work);
    const db = build(join(tmp.path, '.local', 'share', 'goose', 'sessions', 'sessions.db'), work);
    try {
      db.exec(`CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, created_timestamp INTEGER NOT NULL, model TEXT,
        input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0)`);
      const u = db.prepare('INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost_source, is_compaction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      // input_tokens is the whole prompt: 1000 = 600 fresh + 300 read from the cache + 100 written to it
      u.run('20261130_1', 1796119201, 'claude-sonnet-4', 1000, 40, 1040, 300, 100, 'provider_reported', 0);
      u.run('20261130_1', 1796119203, 'claude-sonnet-4', 5000, 200, 5200, 0, 0, 'provider_reported', 1);
      u.run('20261130_1', 1796119204, 'claude-sonnet-4', 1200, 15, 1215, 1100, 0, 'provider_reported', 0);
      const env = cleanEnv(tmp.path);
      const facts = JSON.parse(runCli(['overview', 'goose/20261130_1', '--json'], { env, cwd: work }).stdout) as { tokens?: unknown };
      expect(facts.tokens).toEqual({ input: 700, output: 55, cacheRead: 1400, cacheWrite: 100 });
      const turn = JSON.parse(runCli(['show', 'goose/20261130_1/1', '--json'], { env, cwd: work }).stdout) as { blocks: { kind: string; usage?: unknown }[] };
      expect(turn.blocks.map((b) => b.usage ?? null)).toEqual([null, { input: 600, output: 40, cacheRead: 300, cacheWrite: 100 }, null, null, { input: 100, output: 15, cacheRead: 1100, cacheWrite: 0 }, null]);
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
