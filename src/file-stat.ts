// The one stat the freshness checks make per watched path, answered without building a `Stats`.
// A warm search or `sessions --global` stats every file the index or a kept listing was made
// from (a thousand and more): `statSync` validates its options, then builds a `Stats` object of
// fourteen fields (and V8 feedback for all of them) per call, where a check reads three numbers.
// Node's own fs binding hands back the array `statSync` is built from; it is used only where it
// is safe to (see bindingStat), and `statSync` answers everywhere else. docs/architecture.md
// ("Freshness checks") has the measurements.
import { statSync } from 'node:fs';

export type StampKind = 'file' | 'folder' | 'other';

/** What a freshness check reads of a stat. The object is reused: read it before the next call. */
export type StatStamp = { kind: StampKind; size: number; mtimeMs: number };

type RawStat = (path: string) => Float64Array | undefined;

// The layout of the array node's binding fills (lib/internal/fs/utils.js, getStatsFromBinding).
const MODE = 1;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

const shared: StatStamp = { kind: 'file', size: 0, mtimeMs: 0 };
const NO_THROW = { throwIfNoEntry: false } as const;

let raw: RawStat | null | undefined; // undefined: not decided yet; null: statSync answers

/**
 * The stat of `path` following links, as `statSync(path, { throwIfNoEntry: false })` would
 * answer it: undefined when nothing is there, an error thrown for anything else (ENOTDIR,
 * EACCES, ELOOP, …), `mtimeMs` bit for bit what `Stats.mtimeMs` holds.
 */
export function statStamp(path: string): StatStamp | undefined {
  if (raw === undefined) raw = bindingStat();
  // The binding reads a path only up to a NUL byte; statSync refuses such a path, and so must this.
  if (raw === null || path.includes('\0')) return fromStats(path);
  const a = raw(path);
  if (a === undefined) return undefined;
  const type = a[MODE]! & S_IFMT;
  shared.kind = type === S_IFREG ? 'file' : type === S_IFDIR ? 'folder' : 'other';
  shared.size = a[SIZE]!;
  // Node's msFromTimeSpec, in the same order of operations: the same double.
  shared.mtimeMs = a[MTIME_SEC]! * 1000 + a[MTIME_NSEC]! / 1e6;
  return shared;
}

function fromStats(path: string): StatStamp | undefined {
  const st = statSync(path, NO_THROW);
  if (st === undefined) return undefined;
  shared.kind = st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other';
  shared.size = st.size;
  shared.mtimeMs = st.mtimeMs;
  return shared;
}

type FsBinding = { stat(path: string, bigint: boolean, req: undefined, throwIfNoEntry: boolean): Float64Array | undefined };

/**
 * Node's fs binding, when it can be used as statSync uses it; null otherwise:
 * - on Windows, where statSync first makes the path a namespaced one;
 * - when `process.binding` is the deprecation wrapper (`--pending-deprecation`), which would warn
 *   the user about a call they never made;
 * - when asking throws (the permission model refuses it: a binding call would bypass its checks);
 * - when the binding does not answer as statSync does for node's own executable (another Node
 *   version laid the array out otherwise).
 * SIVTR_PLAIN_STAT=1 keeps statSync, so both paths stay testable on one machine.
 */
function bindingStat(): RawStat | null {
  try {
    if (process.platform === 'win32' || process.env.SIVTR_PLAIN_STAT === '1') return null;
    const binding = (process as unknown as { binding?: (name: string) => unknown }).binding;
    if (typeof binding !== 'function' || binding.name !== 'binding') return null;
    const fs = binding('fs') as FsBinding | undefined;
    if (typeof fs?.stat !== 'function') return null;
    const stat: RawStat = (path) => fs.stat(path, false, undefined, false);
    const probe = process.execPath;
    const a = stat(probe);
    const st = statSync(probe);
    if (!(a instanceof Float64Array) || a.length < 14) return null;
    const mtimeMs = a[MTIME_SEC]! * 1000 + a[MTIME_NSEC]! / 1e6;
    if (a[SIZE] !== st.size || a[MODE] !== st.mode || !Object.is(mtimeMs, st.mtimeMs) || (a[MODE]! & S_IFMT) !== S_IFREG) return null;
    if (stat(probe + '\u0001-sivtr-missing') !== undefined) return null;
    return stat;
  } catch {
    return null;
  }
}

/** Which stat answers, for tests: 'binding' or 'statSync'. */
export function statBackend(): 'binding' | 'statSync' {
  if (raw === undefined) raw = bindingStat();
  return raw === null ? 'statSync' : 'binding';
}
