// index.db: a rebuildable cache of every session and unit sivtr can read, with a trigram FTS5
// table over the parts. The same schema also lives in memory for `--no-index` and read-only
// data dirs, so both paths run the very same queries over the very same rows.
import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { warn } from '../errors.js';
import { ensurePrivateDir } from '../session/log.js';
import type { SessionDoc, UnitDoc } from './docs.js';
import type { Statement } from 'better-sqlite3';
import { isCorruptionError, isUnwritableError, openDb, openMemoryDb, type Db } from './sqlite.js';

/** Bump when what is stored per unit changes: the index is then rebuilt from the sources. */
export const PARSER_VERSION = '3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  key TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  head TEXT NOT NULL,
  tail TEXT NOT NULL,
  parsed_bytes INTEGER NOT NULL DEFAULT 0,
  positions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  sid TEXT NOT NULL,
  title TEXT,
  cwd TEXT,
  updated_at TEXT,
  location TEXT NOT NULL,
  UNIQUE (source, sid)
);
CREATE TABLE IF NOT EXISTS units (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  at INTEGER,
  at_text TEXT,
  cwd TEXT,
  status TEXT NOT NULL,
  title TEXT NOT NULL,
  complete INTEGER NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (session, idx)
);
CREATE TABLE IF NOT EXISTS parts (
  id INTEGER PRIMARY KEY,
  unit INTEGER NOT NULL,
  n INTEGER NOT NULL,
  kind TEXT NOT NULL,
  label TEXT,
  weight REAL NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS parts_unit ON parts (unit);
-- Positions are kept (detail=full): a quoted term is then an exact substring match and BM25 is
-- cheap. Without them (detail=none) the index is a third of the size, but every ranked row
-- must be re-tokenized and a common word takes seconds.
CREATE VIRTUAL TABLE IF NOT EXISTS parts_fts USING fts5 (text, content='parts', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS parts_ai AFTER INSERT ON parts BEGIN
  INSERT INTO parts_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS parts_ad AFTER DELETE ON parts BEGIN
  INSERT INTO parts_fts (parts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`;

export type FileRow = { key: string; size: number; mtime: number; head: string; tail: string; parsed_bytes: number; positions: number };

export class IndexDb {
  private stmts = new Map<string, Statement>();

  constructor(
    readonly db: Db,
    /** False for the in-memory index (`--no-index`, read-only data dir). */
    readonly persistent: boolean,
  ) {
    // Creating the schema costs a few ms of parsing: only a new or foreign file needs it.
    let ready = false;
    try {
      ready = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'parts_ad'").get() !== undefined;
    } catch {
      ready = false;
    }
    if (!ready) db.exec(SCHEMA);
  }

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  meta(key: string): string | undefined {
    return (this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmt('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  file(key: string): FileRow | undefined {
    return this.stmt('SELECT * FROM files WHERE key = ?').get(key) as FileRow | undefined;
  }

  /** Every file row whose key starts with `prefix`, by key (one query instead of one per file). */
  filesWithPrefix(prefix: string): Map<string, FileRow> {
    const rows = this.stmt('SELECT * FROM files WHERE key >= ? AND key < ?').all(prefix, prefix + '\uffff') as FileRow[];
    return new Map(rows.map((r) => [r.key, r]));
  }

  setFile(row: FileRow): void {
    this.stmt(
      `INSERT INTO files (key, size, mtime, head, tail, parsed_bytes, positions) VALUES (@key, @size, @mtime, @head, @tail, @parsed_bytes, @positions)
       ON CONFLICT (key) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, head = excluded.head, tail = excluded.tail,
       parsed_bytes = excluded.parsed_bytes, positions = excluded.positions`,
    ).run(row);
  }

  /** Session ids (sid) of a source with their row id and file key. */
  sessionsOf(source: string): { id: number; sid: string; location: string }[] {
    return this.stmt('SELECT id, sid, location FROM sessions WHERE source = ?').all(source) as { id: number; sid: string; location: string }[];
  }

  upsertSession(doc: SessionDoc): number {
    const row = this.stmt(
      `INSERT INTO sessions (source, sid, title, cwd, updated_at, location) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, sid) DO UPDATE SET title = excluded.title, cwd = excluded.cwd, updated_at = excluded.updated_at, location = excluded.location
       RETURNING id`,
    ).get(doc.source, doc.id, doc.title, doc.cwd, doc.updatedAt, doc.location) as { id: number };
    return row.id;
  }

  deleteSession(id: number): void {
    this.deleteUnitsFrom(id, 0);
    this.stmt('DELETE FROM sessions WHERE id = ?').run(id);
  }

  /** Unit hashes of a session by index, to replace only the units that changed. */
  unitHashes(session: number): Map<number, string> {
    const rows = this.stmt('SELECT idx, hash FROM units WHERE session = ?').all(session) as { idx: number; hash: string }[];
    return new Map(rows.map((r) => [r.idx, r.hash]));
  }

  deleteUnit(session: number, index: number): void {
    const unit = this.stmt('SELECT id FROM units WHERE session = ? AND idx = ?').get(session, index) as { id: number } | undefined;
    if (!unit) return;
    this.stmt('DELETE FROM parts WHERE unit = ?').run(unit.id);
    this.stmt('DELETE FROM units WHERE id = ?').run(unit.id);
  }

  /** Removes units with an index ≥ `from`. */
  deleteUnitsFrom(session: number, from: number): void {
    this.stmt('DELETE FROM parts WHERE unit IN (SELECT id FROM units WHERE session = ? AND idx >= ?)').run(session, from);
    this.stmt('DELETE FROM units WHERE session = ? AND idx >= ?').run(session, from);
  }

  insertUnit(session: number, doc: UnitDoc): void {
    const { id } = this.stmt(
      `INSERT INTO units (session, idx, at, at_text, cwd, status, title, complete, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    ).get(session, doc.index, doc.at, doc.atText, doc.cwd, doc.status, doc.title, doc.complete, doc.hash) as { id: number };
    const insertPart = this.stmt('INSERT INTO parts (unit, n, kind, label, weight, text) VALUES (?, ?, ?, ?, ?, ?)');
    for (const p of doc.parts) insertPart.run(id, p.n, p.kind, p.label, p.weight, p.text);
  }

  /** Makes a session's units exactly `docs`, rewriting only those whose content changed. */
  replaceUnits(session: number, docs: UnitDoc[]): { written: number; kept: number } {
    const old = this.unitHashes(session);
    let written = 0;
    const wanted = new Set<number>();
    for (const doc of docs) {
      wanted.add(doc.index);
      if (old.get(doc.index) === doc.hash) continue;
      if (old.has(doc.index)) this.deleteUnit(session, doc.index);
      this.insertUnit(session, doc);
      written++;
    }
    for (const index of old.keys()) if (!wanted.has(index)) this.deleteUnit(session, index);
    return { written, kept: docs.length - written };
  }

  /** BEGIN IMMEDIATE: a concurrent search waits for the write lock (busy timeout) instead of failing to upgrade a read. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  close(): void {
    this.db.close();
  }
}

function removeDbFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

function openPersistent(path: string, version: string): IndexDb {
  ensurePrivateDir(dirname(path));
  let index = new IndexDb(openDb(path), true);
  if (index.meta('version') !== version) {
    // A different parser (or schema) wrote this cache: start over rather than mix rows.
    const hadVersion = index.meta('version') !== undefined;
    index.close();
    removeDbFiles(path);
    index = new IndexDb(openDb(path), true);
    index.setMeta('version', version);
    if (hadVersion && process.env.SIVTR_DEBUG) warn('index format changed: rebuilding');
  }
  return index;
}

export type OpenedIndex = { index: IndexDb; fallbackReason?: string };

/**
 * The file index when it can be used; a corrupt file is deleted and rebuilt, an unwritable
 * place falls back to an in-memory index (the caller says so on stderr).
 */
export function openIndex(path: string, version: string, opts: { noIndex?: boolean } = {}): OpenedIndex {
  if (opts.noIndex) return { index: memoryIndex(version) };
  try {
    return { index: openPersistent(path, version) };
  } catch (error) {
    if (isCorruptionError(error)) {
      warn(`${path} was unreadable — rebuilding it`);
      try {
        removeDbFiles(path);
        return { index: openPersistent(path, version) };
      } catch (again) {
        return { index: memoryIndex(version), fallbackReason: describe(again) };
      }
    }
    if (isUnwritableError(error) || !existsSync(dirname(path))) return { index: memoryIndex(version), fallbackReason: describe(error) };
    throw error;
  }
}

export function memoryIndex(version: string): IndexDb {
  const index = new IndexDb(openMemoryDb(), false);
  index.setMeta('version', version);
  return index;
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ?? e.message ?? String(error);
}

export { removeDbFiles };
