// The one place better-sqlite3 is constructed, for agents' databases (openSqlite) and sivtr's own
// (history.db, index.db: openDb, with WAL, a busy timeout and owner-only files). Its JavaScript is
// bundled (scripts/build.mjs) and runs on the first open (`sessions` reaches this module through
// the source table and never opens a database); its native addon is loaded by path then too,
// skipping the `bindings` lookup, which tries a dozen paths and throws for each miss.
import { chmodSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

export type Db = BetterSqlite3.Database;

let addonCache: string | undefined;

// In the bundle `require` is esbuild's, so better-sqlite3 stays bundled; from the sources (tests)
// Node's require loads the package.
declare const require: NodeJS.Require | undefined;
let sqliteClass: typeof BetterSqlite3 | undefined;
const betterSqlite3 = (): typeof BetterSqlite3 =>
  (sqliteClass ??= (typeof require === 'function' ? require('better-sqlite3') : createRequire(import.meta.url)('better-sqlite3')) as typeof BetterSqlite3);

/** The addon where npm builds it; `bindings`' own search when it is elsewhere (a prebuilt layout). */
function nativeBinding(): string | undefined {
  if (addonCache === undefined) {
    // Where npm puts it beside sivtr's own files (dist/ or src/session/ → the package root's
    // node_modules): one stat instead of resolving the package, which walks the tree.
    // The bundle's own folder without making a URL of import.meta.url (the URL class is not otherwise loaded by a search).
    const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
    for (const up of [['..'], ['..', '..']]) {
      const near = join(here, ...up, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
      if (existsSync(near)) return (addonCache = near);
    }
    try {
      const path = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
      addonCache = existsSync(path) ? path : '';
    } catch {
      addonCache = '';
    }
  }
  return addonCache === '' ? undefined : addonCache;
}

let addonExports: object | undefined;

/**
 * The addon loaded by process.dlopen, as require() loads a `.node` file, and handed to
 * better-sqlite3 as its binding: require() would first resolve the path again (a realpath, one
 * lstat per folder) and make a Module for it.
 */
function loadedAddon(path: string): object {
  if (addonExports === undefined) {
    const module = { exports: {} };
    process.dlopen(module, path);
    addonExports = module.exports;
  }
  return addonExports;
}

export function openSqlite(path: string, options: BetterSqlite3.Options = {}): Db {
  const addon = nativeBinding();
  const Database = betterSqlite3();
  // better-sqlite3 takes the loaded addon as well as its path (lib/database.js); its types say only a path.
  return new Database(path, addon ? { ...options, nativeBinding: loadedAddon(addon) as unknown as string } : options);
}

const BUSY_TIMEOUT_MS = 5000;

export type OpenOptions = {
  readonly?: boolean;
  /** What a file made by this call holds before it holds anything of value (its schema), written unsynced. */
  setUp?: (db: Db) => void;
};

/** Opens (creating unless read-only) one of our databases with WAL and a busy timeout. */
export function openDb(path: string, opts: OpenOptions = {}): Db {
  const created = !opts.readonly && !existsSync(path);
  const db = openSqlite(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, timeout: BUSY_TIMEOUT_MS });
  if (!opts.readonly) {
    // Captured output is as private as the terminal logs: owner-only, like them.
    if (created) chmodSync(path, 0o600);
    // A new file is switched to WAL and given its schema unsynced: the switch writes the header in
    // a rollback-journal transaction (four fsyncs: journal, folder, journal, file) and the first
    // WAL commit synced the WAL's header (one more; the folder of the new WAL is synced with the
    // WAL at the first checkpoint either way); the five were a tenth of a cold build of 10,000
    // terminal records. A power cut then can only leave a file that holds nothing yet: torn, it
    // opens as not-a-database and is made again; without its WAL, it has no schema, which is made
    // again (docs/architecture.md, "Index"). The first checkpoint syncs the WAL whole.
    if (created) db.pragma('synchronous = OFF');
    switchToWal(db);
    if (created) opts.setUp?.(db);
    db.pragma('synchronous = NORMAL');
  }
  return db;
}

/**
 * Switches a file to WAL (a no-op once it is). Two processes that make the same new file at once
 * (four `sivtr run`s ending together) both switch it: the switch reads the header, then writes
 * it, and SQLite answers a reader that must wait for another's write lock with SQLITE_BUSY at
 * once, without the busy timeout (waiting could deadlock). The switch that lost is tried again
 * until the other's is done, for as long as the busy timeout would have waited.
 */
function switchToWal(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
  }
}

/** A private scratch database: the same schema and queries as a file, nothing written to disk. */
export function openMemoryDb(): Db {
  return openSqlite(':memory:');
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
