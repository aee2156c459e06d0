// Hermes Agent, on a state.db built here in the documented schema (no genuine one: Hermes is a
// Python program): a compression chain read as one conversation, a rewound row, hidden
// scaffolding, a curator prompt, a sub-agent session, a named profile and HERMES_HOME.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { build } from './fixtures/hermes.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-hermes-');
});
afterEach(() => tmp.cleanup());

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

  it('shows the session token totals Hermes keeps (summed over the chain, the sub-agent apart) in overview only: no turn gets a share', () => {
    const work = join(tmp.path, 'app');
    mkdirSync(work);
    const path = join(tmp.path, '.hermes', 'state.db');
    build(path, work);
    const env = cleanEnv(tmp.path);
    // a version without token columns records none: no tokens line, never a zero
    expect((JSON.parse(runCli(['overview', 'hermes/s1', '--json'], { env, cwd: work }).stdout) as { tokens?: unknown }).tokens).toBeUndefined();
    const db = new Database(path);
    for (const c of ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens']) db.exec(`ALTER TABLE sessions ADD COLUMN ${c} INTEGER DEFAULT 0`);
    const set = db.prepare('UPDATE sessions SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?, reasoning_tokens = ? WHERE id = ?');
    set.run(1200, 300, 9000, 400, 50, 's1');
    set.run(800, 100, 2000, 0, 0, 's2');
    set.run(99999, 99999, 0, 0, 0, 's3');
    db.close();
    const facts = JSON.parse(runCli(['overview', 'hermes/s1', '--json'], { env, cwd: work }).stdout) as { tokens?: unknown; tokensScope?: string };
    expect(facts.tokens).toEqual({ input: 2000, output: 400, cacheRead: 11000, cacheWrite: 400 });
    expect(facts.tokensScope).toBe('session');
    expect(runCli(['overview', 'hermes/s1'], { env, cwd: work }).stdout).toContain("- **tokens**: input 2,000 · output 400 · cache reads 11,000 · cache writes 400 (the agent's session total: it records none per turn)");
    const turns = JSON.parse(runCli(['turns', 'hermes/s1', '--json'], { env, cwd: work }).stdout) as { tokens?: unknown }[];
    expect(turns.map((t) => t.tokens)).toEqual([undefined, undefined]);
  });

  it('reads named profiles and HERMES_HOME', () => {
    build(join(tmp.path, 'h', 'profiles', 'work', 'state.db'), tmp.path);
    const env = cleanEnv(tmp.path, { HERMES_HOME: join(tmp.path, 'h') });
    expect(JSON.parse(runCli(['sessions', 'hermes', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
