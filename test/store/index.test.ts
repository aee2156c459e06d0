// The index as a cache: incremental appends parse only the tail, rewrites are noticed by
// fingerprint, parser-version changes and corrupt files rebuild it, a read-only data dir falls
// back to reading the sources, and a search run inside an agent session folds its own echo.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, runCliUnprivileged, unprivilegedIsNobody } from '../helpers/cli.js';
import { generateCorpus } from '../../bench/agents-corpus.mjs';
import { makeWorld, refsOf, searchJson, TERMINAL_ENTRIES, TERMINAL_ID, type World } from './world.js';
import { build as buildGooseDb } from '../agents/fixtures/goose.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

type Stats = { filesSeen: number; filesUnchanged: number; filesAppended: number; filesReparsed: number; linesParsed: number; unitsWritten: number; unitsKept: number; sessionsRemoved: number };

let world: World;
beforeEach(() => {
  world = makeWorld();
});
afterEach(() => world.cleanup());

/** Runs a search and returns its hits and what the index sync did. */
function searchWithStats(args: string[], env = world.env): { refs: string[]; stats: Stats; stderr: string } {
  const r = runCli(['search', ...args, '--format', 'refs', '--limit', '50'], { env: { ...env, SIVTR_INDEX_STATS: '1' } });
  expect(r.code, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('sivtr-index-stats '))!;
  return { refs: r.stdout.trim().split('\n').filter(Boolean), stats: JSON.parse(line.slice('sivtr-index-stats '.length)) as Stats, stderr: r.stderr };
}

const CLAUDE_ID = '2b8d4f60-0a1b-4c2d-8e3f-405162738495';
const claudeFile = () => join(world.home, '.claude', 'projects', '-home-ana-other', `${CLAUDE_ID}.jsonl`);

function claudeTurn(uuid: string, parent: string | null, at: string, user: string, reply: string): string {
  const base = { isSidechain: false, sessionId: CLAUDE_ID, cwd: '/home/ana/other' };
  return [
    { type: 'user', uuid: `${uuid}u`, parentUuid: parent, ...base, timestamp: at, message: { role: 'user', content: user } },
    { type: 'assistant', uuid: `${uuid}a`, parentUuid: `${uuid}u`, ...base, timestamp: at, message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: reply }], stop_reason: 'end_turn' } },
  ].map((r) => JSON.stringify(r) + '\n').join('');
}

describe('incremental indexing', () => {
  it('a second search with nothing changed parses nothing', () => {
    searchWithStats(['anything']);
    const { stats } = searchWithStats(['anything']);
    expect(stats.filesSeen).toBeGreaterThan(5);
    expect(stats.filesUnchanged).toBe(stats.filesSeen);
    expect(stats.linesParsed).toBe(0);
    expect(stats.unitsWritten).toBe(0);
    expect(statSync(join(world.data, 'index.db')).mode & 0o777).toBe(0o600);
  });

  it('a terminal log that grew is parsed from where the last run stopped', () => {
    searchWithStats(['anything']);
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'make zebra', output: 'zebra built', ended_at: '2026-11-25T09:00:00Z', exit_code: 0 }) + '\n');
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'make okapi', output: 'okapi built', ended_at: '2026-11-25T09:01:00Z', exit_code: 0 }) + '\n');
    const { refs, stats } = searchWithStats(['terminal', 'zebra']);
    expect(stats.filesAppended).toBe(1);
    expect(stats.filesReparsed).toBe(0);
    expect(stats.linesParsed).toBe(2); // only the two new lines
    expect(stats.unitsWritten).toBe(2);
    expect(refs).toEqual([`terminal/${TERMINAL_ID}/7`]);
    expect(runCli(['show', refs[0]!], { env: world.env }).stdout).toContain('zebra built');
  });

  it('a half-written last line is picked up once it is complete', () => {
    searchWithStats(['anything']);
    const line = JSON.stringify({ prompt: '$ ', command: 'echo capybara', output: 'capybara', exit_code: 0 });
    appendFileSync(world.logPath, line.slice(0, 20));
    expect(searchWithStats(['terminal', 'capybara']).refs).toEqual([]);
    appendFileSync(world.logPath, line.slice(20) + '\n');
    const { refs, stats } = searchWithStats(['terminal', 'capybara']);
    expect(stats.filesAppended).toBe(1);
    expect(refs).toEqual([`terminal/${TERMINAL_ID}/7`]);
  });

  it('a grown agent transcript rewrites only the units that changed', () => {
    const before = searchWithStats(['claude', 'anything']);
    expect(before.stats.unitsWritten).toBeGreaterThan(5);
    appendFileSync(claudeFile(), claudeTurn('z1', 'b7', '2026-05-01T09:00:00.000Z', 'Tell me about zebras', 'Zebras have stripes.'));
    const { refs, stats } = searchWithStats(['claude', 'zebras']);
    expect(stats.filesAppended).toBe(1);
    expect(stats.filesReparsed).toBe(0);
    expect(stats.unitsWritten).toBeLessThanOrEqual(2); // the new turn (and the one it completed)
    expect(stats.unitsKept).toBeGreaterThanOrEqual(1);
    expect(refs).toHaveLength(1);
    expect(runCli(['show', refs[0]!], { env: world.env }).stdout).toContain('Zebras have stripes.');
  });

  it('new sessions (in a new project folder too) and deleted ones are noticed on the next search', () => {
    searchWithStats(['anything']);
    const id = 'a0a1a2a3-0000-4000-8000-00000000000a';
    const dir = join(world.home, '.claude', 'projects', '-srv-new-project');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${id}.jsonl`), claudeTurn('n1', null, '2026-05-02T10:00:00.000Z', 'where is the walrus config?', 'In walrus.toml.').replaceAll(CLAUDE_ID, id));
    expect(searchWithStats(['claude', 'walrus']).refs).toEqual([`claude/${id}/1`]);
    rmSync(claudeFile());
    const { refs, stats } = searchWithStats(['claude', 'README']);
    expect(refs).toEqual([]);
    expect(stats.sessionsRemoved).toBe(1);
  });

  it('an agent installed since the last search is read: its home appearing in HOME, or in a folder that holds others', () => {
    // The check tells an absent agent's home from a listing of the folder above it, not a stat:
    // Pi's folder comes back into HOME, and Goose's database into ~/.local/share, which exists
    // (OpenCode's) and was listed without it.
    const pi = join(world.home, '.pi');
    renameSync(pi, join(world.root, 'pi-away'));
    expect(searchWithStats(['pi', 'large', 'files']).refs).toEqual([]);
    expect(searchWithStats(['goose', 'lint']).refs).toEqual([]);
    const quiet = searchWithStats(['anything']).stats;
    expect(quiet.filesUnchanged).toBe(quiet.filesSeen);
    renameSync(join(world.root, 'pi-away'), pi);
    expect(searchWithStats(['pi', 'large', 'files']).refs.length).toBeGreaterThan(0);
    buildGooseDb(join(world.home, '.local', 'share', 'goose', 'sessions', 'sessions.db'), '/home/ana/app').close();
    expect(searchWithStats(['goose', 'lint']).refs.length).toBeGreaterThan(0);
  });

  it('history captured after a search that found none is read by the next one', () => {
    for (const f of readdirSync(world.data)) if (f.startsWith('history.db')) rmSync(join(world.data, f));
    expect(searchWithStats(['history', 'pelican']).refs).toEqual([]);
    expect(searchWithStats(['history', 'pelican']).stats.filesReparsed).toBe(0);
    runCli(['pipe'], { env: world.env, input: 'pelican migration finished\n' });
    expect(searchWithStats(['history', 'pelican']).refs).toEqual(['history/1']);
  });

  it('a database-backed provider is re-read when its database (or WAL) changes', () => {
    const db = join(world.home, '.local', 'share', 'opencode', 'opencode.db');
    const before = searchWithStats(['opencode', '--limit', '50']).refs;
    expect(before.length).toBeGreaterThan(0);
    for (const f of ['', '-wal', '-shm']) rmSync(db + f, { force: true });
    expect(searchWithStats(['opencode', '--limit', '50']).refs).toEqual([]);
    execFileSync(process.execPath, [join(ROOT, 'fixtures', 'agents', 'opencode', 'build.mjs'), db], { stdio: 'ignore' });
    expect(searchWithStats(['opencode', '--limit', '50']).refs).toEqual(before);
  });

  it('a rewritten file (same size, other bytes) is noticed by its fingerprint and re-read', () => {
    searchWithStats(['anything']);
    const text = readFileSync(world.logPath, 'utf8');
    const rewritten = text.replace('Connection refused', 'Connection revoked');
    expect(rewritten.length).toBe(text.length);
    writeFileSync(world.logPath, rewritten);
    const { refs, stats } = searchWithStats(['terminal', 'revoked']);
    expect(stats.filesReparsed).toBe(1);
    expect(refs).toEqual([`terminal/${TERMINAL_ID}/1`]);
    expect(searchWithStats(['terminal', 'refused']).refs).not.toContain(`terminal/${TERMINAL_ID}/1`);
  });

  it('a deleted log and pruned history leave the index', () => {
    searchWithStats(['anything']);
    mkdirSync(join(world.root, 'config'), { recursive: true });
    writeFileSync(join(world.root, 'config', 'config.toml'), '[history]\nmax_entries = 1\n');
    runCli(['pipe'], { env: world.env, input: 'third capture\n' });
    writeFileSync(world.logPath, '');
    const { refs, stats } = searchWithStats(['--last', '7d']);
    expect(refs.filter((r) => r.startsWith('history/'))).toEqual(['history/3']);
    expect(refs.some((r) => r.startsWith('terminal/'))).toBe(false);
    expect(stats.sessionsRemoved).toBeGreaterThanOrEqual(2);
  });
});

describe('concurrent searches', () => {
  it('several searches updating the same index at once all succeed with the same answer', async () => {
    searchWithStats(['anything']);
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ prompt: '$ ', command: `step ${i}`, output: `ocelot ${i}`, exit_code: 0 }) + '\n');
    appendFileSync(world.logPath, lines.join(''));
    const once = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, 'search', 'terminal', 'ocelot 1999', '--format', 'refs'], { env: world.env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => done({ code, stdout, stderr }));
      });
    const results = await Promise.all([once(), once(), once(), once()]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
    expect(results[0]!.stdout.split('\n')[0]).toBe(`terminal/${TERMINAL_ID}/${TERMINAL_ENTRIES.length + 2000}`);
  });
});

describe('the index is a cache', () => {
  it('deleting index.db loses nothing', () => {
    const first = searchJson(world.env, ['connection refused', '--limit', '20']);
    for (const f of readdirSync(world.data)) if (f.startsWith('index.db')) writeFileSync(join(world.data, f), '');
    expect(searchJson(world.env, ['connection refused', '--limit', '20'])).toEqual(first);
  });

  it('a corrupt index.db is rebuilt, not fatal', () => {
    const first = searchJson(world.env, ['connection refused', '--limit', '20']);
    writeFileSync(join(world.data, 'index.db'), 'this is not a database'.repeat(200));
    for (const f of ['index.db-wal', 'index.db-shm']) writeFileSync(join(world.data, f), '');
    const r = runCli(['search', 'connection refused', '--limit', '20', '--format', 'json'], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/index\.db was unreadable — rebuilding it/);
    expect(JSON.parse(r.stdout)).toEqual(first);
    const again = runCli(['search', 'connection refused', '--limit', '20', '--format', 'json'], { env: world.env });
    expect(again.stderr).toBe('');
  });

  it('a new index.db a power cut left with its WAL header and nothing else is made again, without a word', () => {
    // A new index.db is switched to WAL and given its schema unsynced (src/session/sqlite.ts):
    // losing its WAL leaves the file as this makes it, a database in WAL mode with no table.
    const first = searchJson(world.env, ['connection refused', '--limit', '20']);
    for (const f of readdirSync(world.data)) if (f.startsWith('index.db')) rmSync(join(world.data, f));
    const bare = new Database(join(world.data, 'index.db'));
    bare.pragma('journal_mode = WAL');
    bare.close();
    expect(readdirSync(world.data).filter((f) => f.startsWith('index.db'))).toEqual(['index.db']);
    const r = runCli(['search', 'connection refused', '--limit', '20', '--format', 'json'], { env: world.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(first);
  });

  it('a different parser version rebuilds from the sources', () => {
    searchWithStats(['anything']);
    const db = new Database(join(world.data, 'index.db'));
    db.prepare("UPDATE meta SET value = 'old-parser' WHERE key = 'version'").run();
    db.prepare('DELETE FROM chunks').run(); // whatever the old parser left must not survive
    db.close();
    const { refs, stats } = searchWithStats(['terminal', 'curl']);
    expect(stats.filesUnchanged).toBe(0);
    expect(refs).toEqual([`terminal/${TERMINAL_ID}/1`]);
  });

  it('a read-only data dir falls back to reading the sources, with one line on stderr', () => {
    const expected = runCli(['search', 'connection refused', '--limit', '20', '--format', 'json', '--no-index'], { env: world.env }).stdout;
    if (unprivilegedIsNobody()) spawnSync('chmod', ['-R', 'a+rX', world.root]);
    chmodSync(world.data, 0o555);
    try {
      const r = runCliUnprivileged(['search', 'connection refused', '--limit', '20', '--format', 'json'], { env: world.env, cwd: world.root });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      // Plain words, not SQLite's SQLITE_READONLY_DIRECTORY.
      expect(lines[0]).toBe(`sivtr: the search index ${join(world.data, 'index.db')} cannot be kept: its directory ${world.data} is not writable — search reads the sources directly, which is slower`);
      expect(r.stdout).toBe(expected);
    } finally {
      chmodSync(world.data, 0o755);
    }
  });
});

describe('the helper thread', () => {
  /** Every row a search reads, with chunk text decoded (the compressor's bytes are not the contract, the text is). */
  function dump(): unknown {
    const db = new Database(join(world.data, 'index.db'), { readonly: true });
    try {
      const zlib = require('node:zlib');
      const text = (b: Buffer): string => (b[0] === 2 ? zlib.brotliDecompressSync(b.subarray(1)) : b[0] === 1 ? zlib.inflateRawSync(b.subarray(1)) : b.subarray(1)).toString('utf8');
      const chunks = (db.prepare('SELECT id, session, lo, first_unit, nparts, nchars, parts, data, records FROM chunks ORDER BY id').all() as { data: Buffer; records: Buffer | null }[]).map((c) => ({
        ...c,
        data: text(c.data),
        records: c.records && text(c.records),
      }));
      // The gram keys and how many chunks hold each, as one digest (there are tens of thousands).
      db.exec('CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, grams, row)');
      const vocab = db.prepare('SELECT term, doc FROM temp.vocab ORDER BY term').raw().all() as [string, number][];
      const grams = { keys: vocab.length, digest: require('node:crypto').createHash('sha1').update(vocab.join(' ')).digest('hex') };
      return {
        sessions: db.prepare('SELECT * FROM sessions ORDER BY id').all(),
        units: db.prepare('SELECT * FROM units ORDER BY id').all(),
        files: db.prepare('SELECT * FROM files ORDER BY key').all(),
        chunks,
        grams,
      };
    } finally {
      db.close();
    }
  }

  it('builds the very index the main thread alone builds, and the same answers', () => {
    // Every source holds several sessions, so the helper has sessions of each kind to read.
    const more = generateCorpus(world.home, { sessions: 12, mb: 1 });
    expect(more.sessions).toBe(12);
    for (let t = 0; t < 4; t++) {
      const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ prompt: '$ ', command: `make target-${t}-${i}`, output: `built PR1137 snake_case 会话 ${t}/${i}`, ended_at: new Date(Date.UTC(2026, 10, 2, t, i)).toISOString(), exit_code: i % 3 }));
      writeFileSync(join(world.data, 'terminals', `77${t}-1764400000.jsonl`), lines.join('\n') + '\n');
    }
    const queries = [['connection refused'], ['PR1137'], ['snake_case'], ['会话'], ['--status', 'failure', 'make'], ['tok-claude-3-1']];
    const build = (after: string, fault?: string, extra: Record<string, string> = {}) => {
      for (const f of readdirSync(world.data)) if (f.startsWith('index.db')) rmSync(join(world.data, f));
      const env = { ...world.env, SIVTR_INDEX_HELPER_AFTER_MS: after, ...(fault ? { SIVTR_INDEX_HELPER_FAULT: fault } : {}), ...extra };
      const { stats } = searchWithStats(['anything'], env);
      const answers = queries.map((q) => searchJson(env, [...q, '--limit', '50']));
      return { stats: stats as Stats & { sessionsHelped: number }, answers, rows: dump() };
    };
    const alone = build('off');
    const helped = build('0');
    expect(alone.stats.sessionsHelped).toBe(0);
    expect(helped.stats.sessionsHelped).toBeGreaterThan(0);
    expect({ ...helped.stats, sessionsHelped: 0 }).toEqual(alone.stats);
    expect(helped.rows).toEqual(alone.rows);
    expect(helped.answers).toEqual(alone.answers);
    // The main thread takes back what the helper has not started (as a user's build does):
    // whoever read each session, the index is the same.
    const shared = build('0', undefined, { SIVTR_INDEX_HELPER_TAKE_BACK: '1' });
    expect({ ...shared.stats, sessionsHelped: 0 }).toEqual(alone.stats);
    expect(shared.rows).toEqual(alone.rows);
    expect(shared.answers).toEqual(alone.answers);
    // …and so it is when the thread dies with sessions given to it.
    const sharedDied = build('0', 'exit-after-2', { SIVTR_INDEX_HELPER_TAKE_BACK: '1' });
    expect(sharedDied.stats.sessionsHelped).toBeLessThanOrEqual(2);
    expect(sharedDied.rows).toEqual(alone.rows);
    // The thread dies after three sessions, with more given to it: the main thread reads those.
    const died = build('0', 'exit-after-3');
    expect(died.stats.sessionsHelped).toBe(3);
    expect({ ...died.stats, sessionsHelped: 0 }).toEqual(alone.stats);
    expect(died.rows).toEqual(alone.rows);
    expect(alone.answers.every((a) => a.total > 0)).toBe(true);
    expect((alone.rows as { grams: { keys: number } }).grams.keys).toBeGreaterThan(1000);
    expect(searchJson(world.env, ['PR1137', '--limit', '50', '--no-index'])).toEqual(alone.answers[1]);

    // Next sync, helper at once again: a grown log and a new one. Sessions the index holds are read
    // by the main thread; the new one may go to the helper; the answers are those of the sources.
    appendFileSync(join(world.data, 'terminals', '770-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'make again', output: 'PR1137 rebuilt', exit_code: 0 }) + '\n');
    writeFileSync(join(world.data, 'terminals', '779-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'make fresh', output: 'PR1137 fresh', exit_code: 0 }) + '\n');
    const env = { ...world.env, SIVTR_INDEX_HELPER_AFTER_MS: '0' };
    const { stats } = searchWithStats(['anything'], env);
    expect(stats.filesAppended).toBe(1);
    expect(stats.filesReparsed).toBe(1);
    const direct = searchJson(env, ['PR1137', '--limit', '50', '--no-index']);
    expect(direct.total).toBe(alone.answers[1]!.total + 2);
    expect(searchJson(env, ['PR1137', '--limit', '50'])).toEqual(direct);
  });

  it('is given no terminal log: the main thread reads those, and packs them as it reads', () => {
    // A data dir of terminal logs alone and a home without agents: with the helper at once (and
    // no take-back), every session it is given is one it reads, so any log given to it shows.
    const data = join(world.root, 'logs-only');
    mkdirSync(join(data, 'terminals'), { recursive: true });
    for (let t = 0; t < 6; t++) {
      const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ prompt: '$ ', command: `make part-${t}-${i}`, output: `linked PR1137 ${t}/${i}`, exit_code: i % 2 }));
      writeFileSync(join(data, 'terminals', `88${t}-1764400000.jsonl`), lines.join('\n') + '\n');
    }
    const home = join(world.root, 'no-agents');
    mkdirSync(home);
    const env = { ...world.env, HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'share'), SIVTR_DATA_DIR: data };
    const { stats } = searchWithStats(['PR1137'], { ...env, SIVTR_INDEX_HELPER_AFTER_MS: '0' });
    expect(stats.filesReparsed).toBe(6);
    expect((stats as Stats & { sessionsHelped: number }).sessionsHelped).toBe(0);
    expect(searchJson(env, ['PR1137', '--limit', '200'])).toEqual(searchJson(env, ['PR1137', '--limit', '200', '--no-index']));
  });
});

describe('chunked storage', () => {
  it('a term whose keys are all in one chunk but not together in one part is not a hit', () => {
    // Both records land in one chunk, which then holds every trigram of "quokkazebu" (from
    // "quokka" and "kazebu") without holding the word: the text must say no.
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'echo quokka', output: 'seen', ended_at: '2026-11-26T09:00:00Z', exit_code: 0 }) + '\n');
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'echo kazebu', output: 'seen', ended_at: '2026-11-26T09:01:00Z', exit_code: 0 }) + '\n');
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'echo okkaze', output: 'quokkazebu at last', ended_at: '2026-11-26T09:02:00Z', exit_code: 0 }) + '\n');
    for (const extra of [[], ['--no-index']]) {
      expect(searchWithStats(['terminal', 'quokkazebu', ...extra]).refs).toEqual([`terminal/${TERMINAL_ID}/9`]);
      expect(searchWithStats(['terminal', 'kazeb', ...extra]).refs.sort()).toEqual([`terminal/${TERMINAL_ID}/8`, `terminal/${TERMINAL_ID}/9`]);
    }
    // Split over two parts of one unit (command and output) is not a match either.
    expect(searchWithStats(['terminal', 'kazebuseen']).refs).toEqual([]);
  });

  // Enough records that the index's fixed cost (schema, one fingerprint per registered source) is small beside them.
  it('stores less than the sources hold, even for output that repeats', () => {
    const lines: string[] = [];
    for (let i = 0; i < 800; i++) {
      const output = Array.from({ length: 40 }, (_, k) => `src/module${k}/file${i}.ts:${k * 7}: warning unused variable \`value_${k}\``).join('\n');
      lines.push(JSON.stringify({ prompt: '$ ', command: `npm run lint -- --shard ${i}`, output, cwd: '/srv/app', ended_at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(), exit_code: 1 }));
    }
    writeFileSync(world.logPath, lines.join('\n') + '\n');
    const { refs } = searchWithStats(['terminal', 'file799.ts:21']);
    expect(refs).toEqual([`terminal/${TERMINAL_ID}/800`]);
    const sources = statSync(world.logPath).size;
    const index = readdirSync(world.data).filter((f) => f.startsWith('index.db')).reduce((n, f) => n + statSync(join(world.data, f)).size, 0);
    expect(index).toBeLessThan(sources * 0.3);
  });
});

describe('self-echo folding', () => {
  it('a search run inside an agent session does not return its own invocation', () => {
    const id = 'e1e2e3e4-0000-4000-8000-000000000001';
    const dir = join(world.home, '.claude', 'projects', '-srv-app');
    mkdirSync(dir, { recursive: true });
    const now = new Date(Date.now() - 60_000).toISOString();
    const base = { isSidechain: false, sessionId: id, cwd: '/srv/app' };
    const records = [
      { type: 'user', uuid: 'u1', parentUuid: null, ...base, timestamp: now, message: { role: 'user', content: 'find where the flamingo error came from' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', ...base, timestamp: now, message: { id: 'm1', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'sivtr search flamingo' } }], stop_reason: 'tool_use' } },
    ];
    writeFileSync(join(dir, `${id}.jsonl`), records.map((r) => JSON.stringify(r) + '\n').join(''));
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'tail app.log', output: 'ERROR flamingo overflow', ended_at: '2026-11-26T09:00:00Z', exit_code: 0 }) + '\n');

    const outside = searchJson(world.env, ['flamingo', '--limit', '20']);
    expect(refsOf(outside)).toEqual(expect.arrayContaining([`claude/${id}/1`, `terminal/${TERMINAL_ID}/7`]));
    expect(outside.folded).toBe(0);

    const inside = { ...world.env, CLAUDE_CODE_SESSION_ID: id };
    const folded = searchJson(inside, ['flamingo', '--limit', '20']);
    expect(refsOf(folded)).toEqual([`terminal/${TERMINAL_ID}/7`]);
    expect(folded.folded).toBe(1);
    const text = runCli(['search', 'flamingo'], { env: inside });
    expect(text.stderr).toMatch(/folded 1 hit/);
    // The same answer without the index.
    expect(searchJson(inside, ['flamingo', '--limit', '20', '--no-index'])).toEqual(folded);
  });
});

describe('interrupted build', () => {
  it('Ctrl-C keeps what was indexed, leaves a sound index.db, and the next search goes on from there', async () => {
    generateCorpus(world.home, { sessions: 60, mb: 40 });
    const child = spawn(process.execPath, [BIN, 'search', 'connection refused'], { env: world.env, cwd: world.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Interrupt once the first batch of sessions is committed.
    const db = join(world.data, 'index.db');
    for (let committed = 0; committed === 0; ) {
      await new Promise((done) => setTimeout(done, 50));
      try {
        const ro = new Database(db, { readonly: true });
        committed = ro.prepare('SELECT count(*) FROM files').pluck().get() as number;
        ro.close();
      } catch {
        // not created yet
      }
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/indexing stopped — what is indexed so far is kept/);
    const ro = new Database(db, { readonly: true });
    expect(ro.pragma('integrity_check', { simple: true })).toBe('ok');
    ro.close();
    const { stats } = searchWithStats(['connection refused']);
    expect(stats.filesUnchanged).toBeGreaterThan(0);
    expect(stats.filesUnchanged).toBeLessThan(stats.filesSeen);
    expect(searchJson(world.env, ['tok-pi-59-1', '--limit', '3'])).toEqual(searchJson(world.env, ['tok-pi-59-1', '--limit', '3', '--no-index']));
  }, 120_000);
});

describe('progress bar', () => {
  it('draws on a terminal while the index is built, and never into a pipe', async () => {
    const imported = (await import('node-pty')) as typeof import('node-pty') & { default?: typeof import('node-pty') };
    const pty = imported.default ?? imported;
    const env = { ...world.env, SIVTR_PROGRESS_AFTER_MS: '0' } as Record<string, string>;
    const child = pty.spawn(process.execPath, [BIN, 'search', 'connection refused'], { cols: 100, rows: 30, cwd: world.root, env });
    let screen = '';
    child.onData((d) => (screen += d));
    const code = await new Promise<number>((done) => child.onExit((e) => done(e.exitCode)));
    expect(code).toBe(0);
    expect(screen).toMatch(/indexing \[#*\.*\] \d+\/\d+ sessions/);
    expect(screen).toContain('\x1b[2K'); // the bar is cleared before results print
    // Through a pipe: same build, no bar.
    world.cleanup();
    world = makeWorld();
    const piped = runCli(['search', 'connection refused'], { env: { ...world.env, SIVTR_PROGRESS_AFTER_MS: '0' } });
    expect(piped.stderr).not.toContain('indexing');
  });
});
