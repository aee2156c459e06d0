// Read-only access to agents' SQLite stores. better-sqlite3 is loaded on use only (a dynamic
// import), so commands that never touch a database do not pay for it. WAL databases are opened
// normally read-only (not `immutable`), so rows not yet checkpointed from the -wal file are seen.
import type { Database } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { warn } from '../errors.js';

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

/**
 * Runs `use` on an agent's database opened read-only and closes it again. A database that does
 * not exist gives undefined in silence (the agent is not installed); one that cannot be read
 * gives undefined with one line naming it (`what`: "the Goose database").
 */
export async function withReadOnlyDb<T>(path: string, what: string, use: (db: Database) => T | Promise<T>): Promise<T | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    const db = await openReadOnly(path);
    try {
      return await use(db);
    } finally {
      db.close();
    }
  } catch (error) {
    warn(`cannot read ${what} ${path} (${(error as Error).message}) — check its permissions`);
    return undefined;
  }
}
