// The one SQLite opener for sivtr's own databases (history.db, index.db). better-sqlite3 is a
// native module that costs startup time, so it is required here, at the point of use, and never
// imported at module top level by anything the CLI bundle loads.
import { chmodSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type Db = BetterSqlite3.Database;

type DbConstructor = new (path: string, options?: BetterSqlite3.Options) => Db;

let constructorCache: DbConstructor | undefined;

function sqliteConstructor(): DbConstructor {
  if (!constructorCache) {
    const require = createRequire(import.meta.url);
    constructorCache = require('better-sqlite3') as DbConstructor;
  }
  return constructorCache;
}

export type OpenOptions = { readonly?: boolean };

/** Opens (creating unless read-only) one of our databases with WAL and a busy timeout. */
export function openDb(path: string, opts: OpenOptions = {}): Db {
  const Database = sqliteConstructor();
  const created = !opts.readonly && !existsSync(path);
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, timeout: 5000 });
  if (!opts.readonly) {
    // Captured output is as private as the terminal logs: owner-only, like them.
    if (created) chmodSync(path, 0o600);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  return db;
}

/** A private scratch database: the same schema and queries as a file, nothing written to disk. */
export function openMemoryDb(): Db {
  return new (sqliteConstructor())(':memory:');
}

/** Errors that mean the file is not a usable database (as opposed to locked or unwritable). */
export function isCorruptionError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_FORMAT';
}

/** Errors that mean we may not write where the database lives. */
export function isUnwritableError(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return (
    code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ||
    code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR')
  );
}
