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

  it('honours GOOSE_PATH_ROOT', () => {
    build(join(tmp.path, 'g', 'data', 'sessions', 'sessions.db'), tmp.path).close();
    const env = cleanEnv(tmp.path, { GOOSE_PATH_ROOT: join(tmp.path, 'g') });
    expect(JSON.parse(runCli(['sessions', 'goose', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
