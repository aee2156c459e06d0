// What the index remembers about a file it read, and how a file is compared with that memory:
// size and mtime first (one stat), then hashes of its first and last 4 KB. A file that still
// starts as it did and holds the old last bytes before its new ones only grew, so only its tail
// needs reading; anything else is read again.
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, sep } from 'node:path';
import { statStamp } from '../file-stat.js';

/** A file as last read: its stat, its edge hashes, and where reading stopped. */
export type FileMark = { size: number; mtime: number; head: string; tail: string; parsed_bytes: number; positions: number };

export type FileChange = 'unchanged' | 'appended' | 'rewritten' | 'new';

const EDGE = 4096;

/**
 * 64 bits of hash of `bytes` (two 32-bit lanes, FNV-1a and a multiply-rotate mix, each seeded
 * with the length), as hex. It only tells whether a file's edge bytes changed, which needs no
 * cryptography: sha1 made every search after a command was recorded (its log grew) load
 * node:crypto, sixteen of Node's modules compiled at each start.
 */
export function edgeHash(bytes: Uint8Array): string {
  const n = bytes.length;
  let a = 0x811c9dc5 ^ n;
  let b = 0x9747b28c ^ Math.imul(n, 0x5bd1e995);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b = (b << 15) | (b >>> 17);
  }
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  b ^= b >>> 13;
  return hex16(a >>> 16) + hex16(a & 0xffff) + hex16(b >>> 16) + hex16(b & 0xffff);
}

// In halves: a whole lane as unsigned (`>>> 0`) is no small integer, and deoptimised the function at each call.
const hex16 = (v: number): string => v.toString(16).padStart(4, '0');

function hashRange(fd: number, start: number, length: number): string {
  const buf = Buffer.alloc(Math.max(0, length));
  const read = length > 0 ? readSync(fd, buf, 0, length, start) : 0;
  return edgeHash(buf.subarray(0, read));
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

/** The marked files of one source as the freshness check reads them (size -1: not a file, e.g. a database row). */
export type StampList = { paths: string[]; sizes: number[]; mtimes: number[] };

/**
 * True when every marked file still has the size and mtime of its mark. One stat each and
 * nothing else made per file: this is most of what a search with nothing new does.
 */
export function filesUnchanged({ paths, sizes, mtimes }: StampList): boolean {
  for (let i = 0; i < paths.length; i++) {
    const size = sizes[i]!;
    if (size < 0) continue;
    let st;
    try {
      st = statStamp(paths[i]!);
    } catch {
      return false;
    }
    if (st === undefined || st.size !== size || st.mtimeMs !== mtimes[i] || st.kind !== 'file') return false;
  }
  return true;
}

// A missing path is the common case for the places sivtr watches (most agents are not installed):
// statStamp answers it without building an exception and its stack, ~10 µs each.
export function statFile(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statStamp(path);
    return st?.kind === 'file' ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** A path's stat as kept in a fingerprint: [path, mtime, size] (size 0 for a folder, -1 when missing). */
export type PathStat = [path: string, mtime: number, size: number];

export function statPath(path: string): PathStat {
  try {
    const st = statStamp(path);
    return st ? [path, st.mtimeMs, st.kind === 'folder' ? 0 : st.size] : [path, -1, -1];
  } catch {
    return [path, -1, -1];
  }
}

/** True when `path` still has the stat a fingerprint kept (statPath's, without making it). */
function samePathStat(path: string, mtime: number, size: number): boolean {
  let st;
  try {
    st = statStamp(path);
  } catch {
    st = undefined;
  }
  if (st === undefined) return mtime === -1 && size === -1;
  return st.mtimeMs === mtime && (st.kind === 'folder' ? 0 : st.size) === size;
}

/**
 * A fingerprint of paths: their stats, kept as text with the `scope` they were chosen for (a
 * data dir from the environment), so a fingerprint taken for another place never matches.
 */
export const pathsFingerprint = (scope: string, paths: readonly string[]): string => JSON.stringify({ scope, paths: paths.map(statPath) });

/**
 * The fingerprint of `paths` when every one of them is missing (as pathsFingerprint would take
 * it), told by `probe`; undefined when one is there.
 */
export function missingPathsFingerprint(scope: string, paths: readonly string[], probe: PathProbe): string | undefined {
  for (const path of paths) if (!probe.same(path, -1, -1)) return undefined;
  return JSON.stringify({ scope, paths: paths.map((path): PathStat => [path, -1, -1]) });
}

/** Folders below the home whose listing answers for the paths inside them: the home, `~/.x`, `~/.x/y`. */
const LISTED_DEPTH = 3;

/**
 * Stats paths for one check of every source, telling most missing ones from a few folder
 * listings instead of a stat each. Most of what sivtr watches is the home of an agent that is not
 * installed (a hundred-odd paths under ~/.config, ~/.vscode-server, ~/.local/share, …), and one
 * listing of the home (or of ~/.config) shows that the folder they would be in is not there.
 * Only a path last seen missing is answered so, and only when a listing does not hold the name;
 * anything else is stat'ed. Names are compared case- and normalisation-folded, so on a
 * file system that folds them a name the listing spells otherwise is stat'ed rather than taken
 * as missing. Made per check, never kept: a listing is only true when it is read.
 */
export class PathProbe {
  private readonly listings = new Map<string, Set<string> | null>();
  private readonly root: string | undefined;

  constructor(home: string | undefined) {
    this.root = home && home !== sep ? home.replace(/[\/]+$/, '') : undefined;
  }

  /**
   * True when `path` still has the stat a fingerprint kept ([path, mtime, size], size -1:
   * missing); a path that was missing may be told still missing by a listing.
   */
  same(path: string, mtime: number, size: number): boolean {
    if (size === -1 && this.listedMissing(path)) return mtime === -1;
    return samePathStat(path, mtime, size);
  }

  private listedMissing(path: string): boolean {
    const root = this.root;
    if (root === undefined || !path.startsWith(root + sep)) return false;
    const names = path.slice(root.length + 1).split(sep);
    let dir = root;
    for (let depth = 0; depth < names.length && depth < LISTED_DEPTH; depth++) {
      const listed = this.listing(dir);
      if (listed === null) return false;
      if (!listed.has(fold(names[depth]!))) return true;
      dir = join(dir, names[depth]!);
    }
    return false;
  }

  private listing(dir: string): Set<string> | null {
    let listed = this.listings.get(dir);
    if (listed === undefined) {
      try {
        listed = new Set(readdirSync(dir).map(fold));
      } catch {
        listed = null; // not a folder, or not readable: stat what is inside
      }
      this.listings.set(dir, listed);
    }
    return listed;
  }
}

const fold = (name: string): string => name.normalize('NFC').toLowerCase();

/** True when the fingerprint was taken for `scope` and every path in it still has its stat. */
export function pathsUnchanged(fingerprint: string, scope: string, probe?: PathProbe): boolean {
  let taken: { scope?: unknown; paths?: unknown };
  try {
    taken = JSON.parse(fingerprint) as typeof taken;
  } catch {
    return false;
  }
  if (taken.scope !== scope || !Array.isArray(taken.paths)) return false;
  const paths = taken.paths as PathStat[];
  for (let i = 0; i < paths.length; i++) {
    const [path, mtime, size] = paths[i]!;
    if (!(probe ? probe.same(path, mtime, size) : samePathStat(path, mtime, size))) return false;
  }
  return true;
}
