// openDb on a file another process is switching to WAL at the same moment: SQLite answers the
// second switch SQLITE_BUSY at once (no busy timeout), which lost `sivtr run`'s output when four
// of them ended together on a new history.db. The switch must wait for the other, as a write does.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, openSqlite } from '../../src/session/sqlite.js';
import { ROOT, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-sqlite-open-');
});
afterEach(() => tmp.cleanup());

/** A child process holding the write lock of `path` for `ms`; resolves once it holds it. */
function holdWriteLock(path: string, ms: number): Promise<{ done: Promise<number> }> {
  const script = `const D = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});
const db = new D(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); process.stdout.write('held\\n');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve({ done }));
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
}

describe('openDb', () => {
  it('waits for another process that holds the write lock of a file not yet in WAL, then switches it', async () => {
    const path = join(tmp.path, 'history.db');
    const first = openSqlite(path); // a new file, still in rollback-journal mode, as another process leaves it mid-switch
    first.exec('CREATE TABLE t (x)');
    first.close();
    const holder = await holdWriteLock(path, 300);
    const started = Date.now();
    const db = openDb(path);
    const waited = Date.now() - started;
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(waited).toBeGreaterThanOrEqual(100); // it waited for the holder rather than switching under it
      db.prepare('INSERT INTO t VALUES (1)').run();
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
    expect(await holder.done).toBe(0);
  });
});
