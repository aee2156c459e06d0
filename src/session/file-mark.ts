// What the index remembers about a file it read, and how a file is compared with that memory:
// size and mtime first (one stat), then hashes of its first and last 4 KB. A file that still
// starts as it did and holds the old last bytes before its new ones only grew, so only its tail
// needs reading; anything else is read again.
import { nodeCrypto } from './lazy-crypto.js';
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** A file as last read: its stat, its edge hashes, and where reading stopped. */
export type FileMark = { size: number; mtime: number; head: string; tail: string; parsed_bytes: number; positions: number };

export type FileChange = 'unchanged' | 'appended' | 'rewritten' | 'new';

const EDGE = 4096;

function hashRange(fd: number, start: number, length: number): string {
  const buf = Buffer.alloc(Math.max(0, length));
  const read = length > 0 ? readSync(fd, buf, 0, length, start) : 0;
  return nodeCrypto().createHash('sha1').update(buf.subarray(0, read)).digest('base64');
}

/** Head hash over the first 4 KB, tail hash over the 4 KB that end at `size`. */
export function edgesOf(path: string, size: number, mtime: number): Pick<FileMark, 'size' | 'mtime' | 'head' | 'tail'> {
  const fd = openSync(path, 'r');
  try {
    return { size, mtime, head: hashRange(fd, 0, Math.min(EDGE, size)), tail: hashRange(fd, Math.max(0, size - EDGE), Math.min(EDGE, size)) };
  } finally {
    closeSync(fd);
  }
}

/** True when the file still starts as it did and holds the old bytes before its new ones. */
function onlyGrew(path: string, old: FileMark, size: number): boolean {
  if (size <= old.size) return false;
  const fd = openSync(path, 'r');
  try {
    return hashRange(fd, 0, Math.min(EDGE, old.size)) === old.head && hashRange(fd, Math.max(0, old.size - EDGE), Math.min(EDGE, old.size)) === old.tail;
  } finally {
    closeSync(fd);
  }
}

/** How a file of this size and mtime differs from its mark. */
export function compareFile(path: string, size: number, mtime: number, old: FileMark | undefined): FileChange {
  if (!old) return 'new';
  if (old.size === size && old.mtime === mtime) return 'unchanged';
  return onlyGrew(path, old, size) ? 'appended' : 'rewritten';
}

/** True when every marked file (size -1: not a file) still has the size and mtime of its mark. */
export function filesUnchanged(marks: ReadonlyMap<string, FileMark>): boolean {
  for (const [path, mark] of marks) {
    if (mark.size < 0) continue;
    const st = statFile(path);
    if (!st || st.size !== mark.size || st.mtimeMs !== mark.mtime) return false;
  }
  return true;
}

// A missing path is the common case for the places sivtr watches (most agents are not installed):
// `throwIfNoEntry: false` answers it without building an exception and its stack, ~10 µs each.
export function statFile(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** A path's stat as kept in a fingerprint: [path, mtime, size] (size 0 for a folder, -1 when missing). */
export type PathStat = [path: string, mtime: number, size: number];

export function statPath(path: string): PathStat {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? [path, st.mtimeMs, st.isDirectory() ? 0 : st.size] : [path, -1, -1];
  } catch {
    return [path, -1, -1];
  }
}

/**
 * A fingerprint of paths: their stats, kept as text with the `scope` they were chosen for (a
 * data dir from the environment), so a fingerprint taken for another place never matches.
 */
export const pathsFingerprint = (scope: string, paths: readonly string[]): string => JSON.stringify({ scope, paths: paths.map(statPath) });

/** True when the fingerprint was taken for `scope` and every path in it still has its stat. */
export function pathsUnchanged(fingerprint: string, scope: string): boolean {
  let taken: { scope?: unknown; paths?: unknown };
  try {
    taken = JSON.parse(fingerprint) as typeof taken;
  } catch {
    return false;
  }
  if (taken.scope !== scope || !Array.isArray(taken.paths)) return false;
  for (const [path, mtime, size] of taken.paths as PathStat[]) {
    const [, nowMtime, nowSize] = statPath(path);
    if (nowMtime !== mtime || nowSize !== size) return false;
  }
  return true;
}
