// One search as a command runs it: open the index (or its in-memory twin), bring it up to date,
// query it. A corrupt index is rebuilt; an unwritable data dir means reading the sources
// directly, said in one line on stderr.
import { dirname } from 'node:path';
import { warn } from '../errors.js';
import { indexDbPath } from '../session/paths.js';
import { sourceNames } from '../memory/sources.js';
import { memoryIndex, openIndex, PARSER_VERSION, removeDbFiles, type IndexDb } from './index-db.js';
import { search, warmUpRanking, type SearchRequest, type SearchResult } from './search.js';
import { isCorruptionError, isUnwritableError } from '../session/sqlite.js';
import { syncIndex, type Progress, type SyncStats } from './sync.js';

/** The parser version plus the source set: a new or removed source rebuilds the cache. */
export function indexVersion(): string {
  return `${PARSER_VERSION}:${sourceNames().join(',')}`;
}

/** A bar on stderr, only on a terminal and only once the build has taken over a second. */
export class StderrProgress implements Progress {
  private started = Date.now();
  /** SIVTR_PROGRESS_AFTER_MS lets tests see the bar without a slow build. */
  private readonly after = Number(process.env.SIVTR_PROGRESS_AFTER_MS ?? 1000);
  private count = 0;
  private all = 0;
  private drawnAt = 0;
  private drawn = false;

  total(n: number): void {
    this.all += n;
  }

  step(): void {
    this.count++;
    const now = Date.now();
    // The clock first: process.stderr is made on first use (on a pipe, with node:net and the stream
    // modules), which a build of under a second never needs.
    if (now - this.started < this.after || now - this.drawnAt < 100 || !process.stderr.isTTY) return;
    this.drawnAt = now;
    this.drawn = true;
    const all = Math.max(this.all, this.count);
    const width = 30;
    const filled = Math.round((this.count / all) * width);
    process.stderr.write(`\r\x1b[2Kindexing [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.count}/${all} sessions`);
  }

  done(): void {
    if (this.drawn) process.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }
}

export type EngineOptions = { env: NodeJS.ProcessEnv; noIndex: boolean; progress?: Progress };

export type EngineResult = SearchResult & { stats: SyncStats; indexed: boolean };

/**
 * Ctrl-C while the index is brought up to date: every write is one synchronous transaction, so
 * the signal is handled between two of them; what they wrote stays, and the next search goes on
 * from there instead of starting over. The handler is set when the sync begins to list sources
 * again (Progress.begin), before its first write: a search with nothing new sets none, since
 * `process.once('SIGINT')` loads Node's signal binding and listener code (~0.7 M instructions of a
 * warm search, callgrind), and a check that only stats files has nothing to keep.
 */
function stoppingCleanly(progress: Progress): { progress: Progress; release: () => void } {
  const onSignal = (): void => {
    progress.done();
    process.stderr.write('sivtr: indexing stopped — what is indexed so far is kept, and the next search goes on from there\n');
    process.exit(130);
  };
  let set = false;
  const watched: Progress = {
    begin: () => {
      if (!set) process.once('SIGINT', onSignal);
      set = true;
      progress.begin?.();
    },
    total: (n) => progress.total(n),
    step: () => progress.step(),
    done: () => progress.done(),
  };
  return { progress: watched, release: () => void (set && process.removeListener('SIGINT', onSignal)) };
}

async function syncAndSearch(index: IndexDb, req: SearchRequest, opts: EngineOptions): Promise<EngineResult> {
  const shown = opts.progress ?? new StderrProgress();
  const { progress, release } = index.persistent ? stoppingCleanly(shown) : { progress: shown, release: () => {} };
  let stats: SyncStats;
  try {
    stats = await syncIndex(index, opts.env, progress);
  } finally {
    release();
  }
  return { ...search(index, req), stats, indexed: index.persistent };
}

/** Why the index cannot be kept, in words rather than SQLite's codes, and what search does instead. */
function unusableIndex(path: string, code: string): string {
  const why = code.startsWith('SQLITE_READONLY_DIRECTORY') || code === 'EROFS' || code === 'ENOENT' || code.startsWith('SQLITE_CANTOPEN')
    ? `its directory ${dirname(path)} is not writable`
    : code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM'
      ? 'the file is not writable'
      : `the disk refused it (${code})`;
  return `the search index ${path} cannot be kept: ${why} — search reads the sources directly, which is slower`;
}

export async function runSearch(req: SearchRequest, opts: EngineOptions): Promise<EngineResult> {
  const path = indexDbPath(opts.env);
  const version = indexVersion();
  const opened = openIndex(path, version, { noIndex: opts.noIndex });
  if (opened.fallbackReason) warn(unusableIndex(path, opened.fallbackReason));
  let index = opened.index;
  try {
    return await syncAndSearch(index, req, opts);
  } catch (error) {
    if (!index.persistent) throw error;
    index.close();
    if (isCorruptionError(error)) {
      warn(`${path} was unreadable — rebuilding it`);
      removeDbFiles(path);
      const again = openIndex(path, version);
      index = again.index;
      return await syncAndSearch(index, req, opts);
    }
    if (isUnwritableError(error)) {
      warn(unusableIndex(path, (error as { code?: string }).code ?? 'error'));
      index = memoryIndex(version);
      return await syncAndSearch(index, req, opts);
    }
    throw error;
  } finally {
    index.close();
  }
}

/**
 * Search for a long-lived process (the MCP server): the index stays open between calls and is
 * brought up to date before a search unless that was done in the last `freshMs` — a file walk
 * per call would cost more than the query. A request repeated while nothing changed (the next
 * page of the same answer, most often) is answered from memory. Any trouble closes the index and
 * falls back to `runSearch`, which knows how to rebuild or do without it.
 */
export class WarmSearch {
  private index: IndexDb | undefined;
  private syncedAt = -Infinity;
  private stats: SyncStats | undefined;
  private generation = 0;
  private warmed = false;
  private readonly answers = new Map<string, { generation: number; at: number; result: EngineResult }>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly progress: Progress,
    private readonly freshMs = 1000,
    private readonly cacheMs = 30_000,
  ) {}

  async search(req: SearchRequest, key?: string): Promise<EngineResult> {
    try {
      await this.bringUpToDate();
    } catch {
      this.close();
      return runSearch(req, { env: this.env, noIndex: false, progress: this.progress });
    }
    const now = Date.now();
    const kept = key === undefined ? undefined : this.answers.get(key);
    if (kept && kept.generation === this.generation && now - kept.at < this.cacheMs) return kept.result;
    const result: EngineResult = { ...search(this.index!, req), stats: this.stats!, indexed: true };
    if (!this.warmed) {
      this.warmed = true;
      // Once, with the first answer: the searches after it find the ranking of common words compiled.
      try {
        warmUpRanking(this.index!, now);
      } catch {
        // A warm-up that fails costs nothing but its time; the next search meets the same trouble itself.
      }
    }
    if (key !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, { generation: this.generation, at: now, result });
      if (this.answers.size > 64) this.answers.delete(this.answers.keys().next().value!);
    }
    return result;
  }

  private async bringUpToDate(): Promise<void> {
    if (this.index === undefined) {
      const opened = openIndex(indexDbPath(this.env), indexVersion());
      if (!opened.index.persistent) {
        opened.index.close();
        throw new Error('the index cannot be kept');
      }
      this.index = opened.index;
      this.index.keepLeads = true;
      this.syncedAt = -Infinity;
    }
    if (Date.now() - this.syncedAt < this.freshMs) return;
    const stats = await syncIndex(this.index, this.env, this.progress);
    this.syncedAt = Date.now();
    this.stats = stats;
    if (stats.filesUnchanged < stats.filesSeen || stats.sessionsRemoved > 0) this.generation++;
  }

  close(): void {
    this.index?.close();
    this.index = undefined;
    this.answers.clear();
  }
}
