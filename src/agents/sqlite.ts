// Read-only access to agents' SQLite stores. better-sqlite3 is loaded on use only (a dynamic
// import), so commands that never touch a database do not pay for it. WAL databases are opened
// normally read-only (not `immutable`), so rows not yet checkpointed from the -wal file are seen.
import type { Database } from 'better-sqlite3';

export async function openReadOnly(path: string): Promise<Database> {
  const { openSqlite } = await import('../session/sqlite.js');
  return openSqlite(path, { readonly: true, fileMustExist: true, timeout: 2000 });
}

/** Column names of a table (empty when the table does not exist): schemas drift, so probe. */
export function columnsOf(db: Database, table: string): Set<string> {
  try {
    const rows = db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as { name: string }[];
    return new Set(rows.map((r) => r.name));
  } catch {
    return new Set();
  }
}
