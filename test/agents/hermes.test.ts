// Hermes Agent, on a state.db built here in the documented schema (no genuine one: Hermes is a
// Python program): a compression chain read as one conversation, a rewound row, hidden
// scaffolding, a curator prompt, a sub-agent session, a named profile and HERMES_HOME.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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

  it('reads named profiles and HERMES_HOME', () => {
    build(join(tmp.path, 'h', 'profiles', 'work', 'state.db'), tmp.path);
    const env = cleanEnv(tmp.path, { HERMES_HOME: join(tmp.path, 'h') });
    expect(JSON.parse(runCli(['sessions', 'hermes', '--global', '--json'], { env }).stdout)).toHaveLength(1);
  });
});
