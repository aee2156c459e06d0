// history.db: outputs captured by `sivtr run` and `sivtr pipe`. Ids come from AUTOINCREMENT so a
// `history/<id>` ref never points at a different entry after retention deletes old ones. A
// database left by the tool's former name (`sift`) is read in place, and copied into the new
// database the first time sivtr writes one, so switching names loses nothing.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { SivtrError } from '../errors.js';
import { makeEntry, type SessionEntry } from './entry.js';
import { ensurePrivateDir } from '../files.js';
import { historyDbForRead, historyDbPath, type Env } from './paths.js';
import { isUnwritableError, openDb, type Db } from './sqlite.js';

export type HistoryKind = 'run' | 'pipe';

export type HistoryEntry = SessionEntry & { id: number; kind: HistoryKind; at: number };

export type NewHistoryEntry = {
  kind: HistoryKind;
  command: string;
  /** Captured text: raw, rendered into plain + ANSI by the one text model (makeEntry); or, with
   *  `outputAnsi`, already rendered (plain here, coloured there). */
  output: string;
  outputAnsi?: string;
  cwd?: string;
  endedAt: Date;
  durationMs?: number;
  exitCode?: number;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  command TEXT NOT NULL,
  output TEXT NOT NULL,
  output_ansi TEXT,
  exit_code INTEGER,
  duration_ms INTEGER,
  cwd TEXT,
  ended_at TEXT NOT NULL,
  at INTEGER NOT NULL
);
-- Search goes through index.db like every other source: history.db keeps no index of its own.
DROP TRIGGER IF EXISTS entries_ai;
DROP TRIGGER IF EXISTS entries_ad;
DROP TABLE IF EXISTS entries_fts;
`;

/** The legacy `sift` schema (`history(id, content, command, timestamp, …)`), read as entries. */
const LEGACY_SELECT = `SELECT id, CASE WHEN command IS NULL OR command = '' THEN 'pipe' ELSE 'run' END AS kind,
  coalesce(command, '') AS command, content AS output, NULL AS output_ansi, NULL AS exit_code, NULL AS duration_ms,
  NULL AS cwd, timestamp AS ended_at, coalesce(CAST(strftime('%s', timestamp) AS INTEGER) * 1000, 0) AS at FROM history`;

type Row = {
  id: number; kind: HistoryKind; command: string; output: string; output_ansi: string | null; exit_code: number | null;
  duration_ms: number | null; cwd: string | null; ended_at: string; at: number;
};

function fromRow(row: Row): HistoryEntry {
  const entry: HistoryEntry = { id: row.id, kind: row.kind, at: row.at, prompt: '', command: row.command, output: row.output };
  if (row.output_ansi) entry.output_ansi = row.output_ansi;
  if (row.cwd) entry.cwd = row.cwd;
  entry.ended_at = row.ended_at;
  if (row.duration_ms !== null) entry.duration_ms = row.duration_ms;
  if (row.exit_code !== null) entry.exit_code = row.exit_code;
  return entry;
}

function hasTable(db: Db, name: string, schema = 'main'): boolean {
  return db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
}

export class HistoryStore {
  private constructor(
    private readonly db: Db,
    readonly path: string,
    /** Reading a legacy `sift` database: its own table, never written. */
    private readonly legacy: boolean,
  ) {}

  /** The database new captures go to; created (and seeded from a legacy one) when missing. */
  static openForWrite(env: Env = process.env): HistoryStore {
    const path = historyDbPath(env);
    const legacyPath = historyDbForRead(env);
    const fresh = !existsSync(path);
    let db: Db;
    try {
      ensurePrivateDir(dirname(path));
      db = openDb(path);
      db.exec(SCHEMA);
    } catch (error) {
      if (isUnwritableError(error)) throw new SivtrError(`cannot write ${path} (${(error as { code?: string }).code})`, 'make the data dir writable or set SIVTR_DATA_DIR');
      throw error;
    }
    if (fresh && legacyPath !== path && existsSync(legacyPath)) importLegacy(db, legacyPath);
    return new HistoryStore(db, path, false);
  }

  /** The database to read (current, else legacy `sift`), or undefined when nothing was captured. */
  static openForRead(env: Env = process.env): HistoryStore | undefined {
    const path = historyDbForRead(env);
    if (!existsSync(path)) return undefined;
    const db = openDb(path, { readonly: true });
    if (hasTable(db, 'entries')) return new HistoryStore(db, path, false);
    if (hasTable(db, 'history')) return new HistoryStore(db, path, true);
    db.close();
    return undefined;
  }

  private get select(): string {
    return this.legacy ? `SELECT * FROM (${LEGACY_SELECT})` : 'SELECT * FROM entries';
  }

  add(fields: NewHistoryEntry, maxEntries: number): HistoryEntry {
    const normal = makeEntry({
      command: fields.command,
      output: fields.output,
      output_ansi: fields.outputAnsi,
      cwd: fields.cwd,
      ended_at: fields.endedAt,
      duration_ms: fields.durationMs,
      exit_code: fields.exitCode,
    });
    const insert = this.db.prepare(
      `INSERT INTO entries (kind, command, output, output_ansi, exit_code, duration_ms, cwd, ended_at, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const id = this.db.transaction(() => {
      const { lastInsertRowid } = insert.run(
        fields.kind, normal.command, normal.output, normal.output_ansi ?? null, normal.exit_code ?? null,
        normal.duration_ms ?? null, normal.cwd ?? null, normal.ended_at!, fields.endedAt.getTime(),
      );
      if (maxEntries > 0) {
        this.db.prepare('DELETE FROM entries WHERE id <= (SELECT id FROM entries ORDER BY id DESC LIMIT 1 OFFSET ?)').run(maxEntries);
      }
      return Number(lastInsertRowid);
    })();
    return this.get(id)!;
  }

  get(id: number): HistoryEntry | undefined {
    const row = this.db.prepare(`${this.select} WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  newest(): HistoryEntry | undefined {
    const row = this.db.prepare(`${this.select} ORDER BY id DESC LIMIT 1`).get() as Row | undefined;
    return row && fromRow(row);
  }

  /** Newest first. */
  list(limit: number, offset = 0): HistoryEntry[] {
    const rows = this.db.prepare(`${this.select} ORDER BY id DESC LIMIT ? OFFSET ?`).all(limit, offset) as Row[];
    return rows.map(fromRow);
  }

  count(): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM (${this.select})`).get() as { n: number }).n;
  }

  /** Oldest first, entries with an id above `afterId` (for incremental indexing). */
  *since(afterId: number): Generator<HistoryEntry> {
    for (const row of this.db.prepare(`${this.select} WHERE id > ? ORDER BY id`).iterate(afterId) as Iterable<Row>) yield fromRow(row);
  }

  /** Every id, oldest first. */
  ids(): number[] {
    return (this.db.prepare(`SELECT id FROM (${this.select}) ORDER BY id`).pluck().all() as number[]);
  }

  /** Ids and count: enough to tell appended entries from pruned ones. */
  span(): { count: number; minId: number; maxId: number } {
    const r = this.db.prepare(`SELECT count(*) AS count, coalesce(min(id), 0) AS minId, coalesce(max(id), 0) AS maxId FROM (${this.select})`).get() as {
      count: number; minId: number; maxId: number;
    };
    return r;
  }

  close(): void {
    this.db.close();
  }
}

function importLegacy(db: Db, legacyPath: string): void {
  try {
    db.prepare('ATTACH DATABASE ? AS legacy').run(legacyPath);
  } catch {
    return; // an unreadable legacy file stays where it is, readable by hand
  }
  try {
    if (hasTable(db, 'entries', 'legacy')) {
      db.exec('INSERT OR IGNORE INTO entries SELECT * FROM legacy.entries');
    } else if (hasTable(db, 'history', 'legacy')) {
      db.exec(`INSERT OR IGNORE INTO entries (id, kind, command, output, output_ansi, exit_code, duration_ms, cwd, ended_at, at)
        ${LEGACY_SELECT.replace('FROM history', 'FROM legacy.history')}`);
    }
  } finally {
    db.exec('DETACH DATABASE legacy');
  }
}
