// The freshness check of a search with nothing new reads each source's file stamps from one value
// kept beside its fingerprint (IndexDb.saveStamps). These tests hold that the value can never
// answer for file rows it no longer equals, and that what a log's reader does to it (salvage)
// is seen like any other change.
import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeWorld, type World } from './world.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

type Stats = { filesSeen: number; filesUnchanged: number; filesAppended: number; filesReparsed: number };

let world: World;
beforeEach(() => {
  world = makeWorld();
});
afterEach(() => world.cleanup());

function search(args: string[]): { refs: string[]; stats: Stats } {
  const r = runCli(['search', ...args, '--format', 'refs', '--limit', '50'], { env: { ...world.env, SIVTR_INDEX_STATS: '1' } });
  expect(r.code, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('sivtr-index-stats '))!;
  return { refs: r.stdout.trim().split('\n').filter(Boolean), stats: JSON.parse(line.slice('sivtr-index-stats '.length)) as Stats };
}

const indexPath = (): string => join(world.data, 'index.db');
const keptStamps = (db: import('better-sqlite3').Database): string[] =>
  (db.prepare("SELECT key FROM meta WHERE key LIKE 'stamps:%' ORDER BY key").pluck().all() as string[]).map((k) => k.slice('stamps:'.length));

describe('the file stamps kept beside a fingerprint', () => {
  it('are kept for every source once a search has checked it', () => {
    search(['anything']);
    const db = new Database(indexPath(), { readonly: true });
    try {
      expect(keptStamps(db)).toEqual(expect.arrayContaining(['claude', 'codex', 'history', 'terminal']));
    } finally {
      db.close();
    }
    // A search that reads them finds every file as it was.
    const { stats } = search(['anything']);
    expect(stats.filesSeen).toBeGreaterThan(5);
    expect(stats.filesUnchanged).toBe(stats.filesSeen);
  });

  it('are made once for an index written before they were kept, from its rows, which answer meanwhile', () => {
    search(['anything']);
    const db = new Database(indexPath());
    try {
      db.prepare("DELETE FROM meta WHERE key LIKE 'stamps:%'").run();
    } finally {
      db.close();
    }
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'make zebra', output: 'zebra built', ended_at: '2026-11-25T09:00:00Z', exit_code: 0 }) + '\n');
    const grown = search(['terminal', 'zebra']);
    expect(grown.stats.filesAppended).toBe(1);
    expect(grown.refs).toEqual(['terminal/4242-1764400000/7']);
    const quiet = search(['anything']);
    expect(quiet.stats.filesUnchanged).toBe(quiet.stats.filesSeen);
    const again = new Database(indexPath(), { readonly: true });
    try {
      expect(keptStamps(again)).toEqual(expect.arrayContaining(['claude', 'codex', 'history', 'terminal']));
    } finally {
      again.close();
    }
  });

  it('are dropped by any write of a file row, so a writer that knows nothing of them (another sivtr) cannot leave them stale', () => {
    search(['anything']);
    const before = statSync(world.logPath);
    // Another sivtr records the log as it would be at a later mtime, without touching the stamps.
    const db = new Database(indexPath());
    try {
      db.prepare('UPDATE files SET mtime = ? WHERE key = ?').run(before.mtimeMs + 5000, `terminal:${world.logPath}`);
      expect(keptStamps(db)).not.toContain('terminal');
      expect(keptStamps(db)).toContain('claude');
    } finally {
      db.close();
    }
    // The log now holds other bytes of the same size with the mtime the stamps kept: only its row
    // (whose mtime differs) tells that it must be read again.
    const text = readFileSync(world.logPath, 'utf8');
    const rewritten = text.replace('Connection refused', 'Connection revoked');
    expect(rewritten.length).toBe(text.length);
    writeFileSync(world.logPath, rewritten);
    utimesSync(world.logPath, before.atime, before.mtime);
    const { refs, stats } = search(['terminal', 'revoked']);
    expect(stats.filesReparsed).toBe(1);
    expect(refs).toEqual(['terminal/4242-1764400000/1']);
  });

  it('see a log its reader salvaged (a damaged line blanked in place, same size) as changed', () => {
    appendFileSync(world.logPath, '{"prompt": "$ ", "command": "cut sh\n');
    appendFileSync(world.logPath, JSON.stringify({ prompt: '$ ', command: 'make zebra', output: 'zebra built', ended_at: '2026-11-25T09:00:00Z', exit_code: 0 }) + '\n');
    expect(search(['terminal', 'zebra']).refs).toEqual(['terminal/4242-1764400000/7']);
    const size = statSync(world.logPath).size;
    // `copy` reads the log and salvages it: the damaged line becomes spaces, the size stays.
    const copied = runCli(['copy', '--print'], { env: { ...world.env, SIVTR_CLIPBOARD: 'none' } });
    expect(copied.stderr).toContain('blanked it');
    expect(readFileSync(world.logPath, 'utf8')).not.toContain('cut sh');
    expect(statSync(world.logPath).size).toBe(size);
    const { refs, stats } = search(['terminal', 'zebra']);
    expect(stats.filesReparsed).toBe(1);
    expect(refs).toEqual(['terminal/4242-1764400000/7']);
    // Once read, the salvaged log is unchanged again.
    const again = search(['terminal', 'zebra']);
    expect(again.stats.filesUnchanged).toBe(again.stats.filesSeen);
    expect(again.refs).toEqual(refs);
  });
});
