// Zed agent threads, on a threads.db built here in the schema of Zed's crates/agent/src/db.rs (no
// genuine one: Zed is an editor): a zstd body in the current 0.3.0 shape (text, thinking, a
// mention left out, a tool use paired with its result by id), an older JSON body in the
// role/segments shape, a sub-agent thread, a damaged body, and the data-folder variables.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

type Rec = Record<string, unknown>;

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-zed-');
});
afterEach(() => tmp.cleanup());

/** A valid zstd frame of raw (stored) blocks: what any zstd decoder reads, written without a compressor. */
function zstdFrame(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])]; // magic; no size or checksum; 128 KiB window
  const BLOCK = 64 * 1024;
  for (let at = 0; at === 0 || at < data.length; at += BLOCK) {
    const chunk = data.subarray(at, at + BLOCK);
    const last = at + BLOCK >= data.length ? 1 : 0;
    const header = (chunk.length << 3) | last; // block type 0: raw
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), chunk);
  }
  return Buffer.concat(parts);
}

const current = {
  version: '0.3.0',
  title: 'Fix the parser',
  updated_at: '2026-11-30T09:05:00+00:00',
  messages: [
    { User: { id: 'u1', content: [{ Text: 'why does the parser fail?' }, { Mention: { uri: { File: { abs_path: '/p/src/parse.rs' } }, content: 'fn parse() { … whole file … }' } }] } },
    {
      Agent: {
        content: [{ Thinking: { text: 'Look at the file first.', signature: null } }, { Text: 'Reading it.' }, { ToolUse: { id: 'toolu_1', name: 'read_file', raw_input: '{"path":"src/parse.rs"}', input: { path: 'src/parse.rs' }, is_input_complete: true } }],
        tool_results: { toolu_1: { tool_use_id: 'toolu_1', tool_name: 'read_file', is_error: false, content: { Text: 'fn parse() { unwrap() }' }, output: null } },
      },
    },
    { Agent: { content: [{ Text: 'It unwraps an error: handle it instead.' }], tool_results: {} } },
    'Resume',
    { Future: { x: 1 } },
  ],
};

const legacy = {
  version: '0.2.0',
  summary: 'Old chat',
  messages: [
    { id: 0, role: 'user', segments: [{ type: 'text', text: 'list the files' }], tool_uses: [], tool_results: [], context: '' },
    { id: 1, role: 'assistant', segments: [{ type: 'text', text: 'Listing.' }], tool_uses: [{ id: 't1', name: 'list_directory', input: { path: '.' } }], tool_results: [{ tool_use_id: 't1', is_error: true, content: 'permission denied' }] },
    { id: 2, role: 'user', segments: [{ type: 'text', text: 'try again' }], tool_uses: [], tool_results: [] },
  ],
};

function build(dataDir: string, work: string): void {
  mkdirSync(join(dataDir, 'threads'), { recursive: true });
  const db = new Database(join(dataDir, 'threads', 'threads.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)');
  const ins = db.prepare('INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  ins.run('th-current', 'Fix the parser', '2026-11-30T09:05:00+00:00', 'zstd', zstdFrame(Buffer.from(JSON.stringify(current))), null, `${work}\n/other/folder`, '2026-11-30T09:00:00+00:00');
  ins.run('th-legacy', 'Old chat', '2026-11-29T08:00:00+00:00', 'json', Buffer.from(JSON.stringify(legacy)), null, '/elsewhere', null);
  ins.run('th-damaged', 'Broken', '2026-11-28T08:00:00+00:00', 'zstd', Buffer.from('not zstd at all'), null, '/elsewhere', null);
  db.close();
}

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
