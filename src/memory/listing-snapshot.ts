// A provider's whole listing, kept ready between runs in `<data>/cache/list-<provider>.json`:
// the sessions `sessions` prints (ids to show, times, titles, turn counts, parents), in order.
// It answers only after checking that nothing it was made from changed: every folder of the
// trees its provider walks (a session file created, renamed or deleted changes its folder's
// mtime), every other input the provider names (a title index, a settings file) and every
// session file (an appended or rewritten one changes its size or mtime). One stat each, where a
// listing made afresh reads every folder and builds, sorts and numbers a summary per session:
// ~100 K instructions a session in a fresh process (callgrind, 1,000 sessions). Anything that
// does not match means listing afresh and keeping the new listing. It is a cache: deleting it
// loses nothing, and a read or write failure means working without it.
//
// Beside it, a command may keep a printed form of the same listing (a view: `sessions --global`
// keeps its table's cells), in `<data>/cache/view-<provider>-<name>.txt` with a copy of the stats
// the listing was made from, checked the same way: a warm run then reads one line of paths, one
// of numbers and the printed text, with no object made per session (the JSON of the sessions was
// ~10 M instructions of a warm `sessions --global` at 1,000 sessions, callgrind).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { asciiJson, LISTING_VERSION } from '../agents/listing-cache.js';
import type { ListingInputs } from '../agents/types.js';
import { statStamp, type StatStamp } from '../file-stat.js';
import { childPath, writeFileAtomic } from '../files.js';
import { dataDir } from '../session/paths.js';
import type { SessionInfo } from './types.js';

const VERSION = 3;
const VIEW_VERSION = 1;
/**
 * A folder is told unchanged by its mtime, and a file created in the same tick of the file
 * system's clock as the listing leaves it as it was (whole seconds on some file systems): a
 * listing is not kept while a folder of it changed less than this long before it was read.
 */
const SETTLED_MS = 2000;
/** How deep below a tree's root folders are checked (providers keep sessions a few levels down). */
const DEPTH = 8;

/** Stats as kept, flat: path, mtime, size code (sizeCode; -1, -1 when missing). */
type Stats = (string | number)[];
/**
 * `stamps`: mtime and size of each session's file, in the order of `sessions` (whose locations
 * name them); `files`: the other files the listing saw (a file that holds no session yet, a second
 * copy of one), with their paths.
 */
type Stored = { version: number; key: string; paths: Stats; stamps: number[]; files: Stats; sessions: SessionInfo[] };
/** A listing as kept, checked or just made: what a view of it is kept with. */
export type Snapshot = Readonly<Stored>;

/**
 * A file's size; -2 for a folder (a new, deleted or renamed entry changes its mtime, never its
 * size), -3 for anything else: a kept stat matches only the same kind of entry.
 */
const sizeCode = (st: StatStamp): number => (st.kind === 'file' ? st.size : st.kind === 'folder' ? -2 : -3);

const fileOf = (provider: string, env: NodeJS.ProcessEnv): string => childPath(dataDir(env), 'cache', `list-${provider}.json`);

/** What a kept listing is valid for: the inputs (paths depend on the environment) and both cache formats. */
export const listingKey = (inputs: ListingInputs): string => JSON.stringify([LISTING_VERSION, VERSION, inputs.trees, inputs.paths]);

function pushStat(out: Stats, path: string): boolean {
  let st;
  try {
    st = statStamp(path);
  } catch {
    st = undefined;
  }
  if (!st) {
    out.push(path, -1, -1);
    return false;
  }
  const code = sizeCode(st);
  out.push(path, st.mtimeMs, code);
  return code === -2;
}

function pushTree(out: Stats, dir: string, depth: number): void {
  if (!pushStat(out, dir) || depth >= DEPTH) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // unreadable: its own stat above still tells a change
  }
  for (const e of entries) if (e.isDirectory()) pushTree(out, childPath(dir, e.name), depth + 1);
}

/**
 * The stats a listing is checked by, taken before the provider lists: a session that appears
 * while it lists then changes a folder after this, and the next run lists afresh.
 */
export function inputStats(inputs: ListingInputs): Stats {
  const out: Stats = [];
  for (const root of inputs.trees) pushTree(out, root, 0);
  for (const path of inputs.paths) pushStat(out, path);
  return out;
}

/** True when every session's file still has its stamp: one stat each, nothing made per file. */
function sessionsUnchanged(sessions: readonly SessionInfo[], stamps: readonly number[]): boolean {
  if (stamps.length !== sessions.length * 2) return false;
  for (let i = 0; i < sessions.length; i++) {
    let st;
    try {
      st = statStamp(sessions[i]!.location);
    } catch {
      return false;
    }
    if (st === undefined || st.mtimeMs !== stamps[2 * i] || st.size !== stamps[2 * i + 1] || st.kind !== 'file') return false;
  }
  return true;
}

/** True when every kept stat is still what it was (pushStat's rule, nothing made per path). */
function unchanged(stats: Stats): boolean {
  for (let i = 0; i < stats.length; i += 3) {
    let st;
    try {
      st = statStamp(stats[i] as string);
    } catch {
      return false;
    }
    const mtime = stats[i + 1] as number;
    if (st === undefined) {
      if (mtime !== -1) return false;
      continue;
    }
    if (st.mtimeMs !== mtime || sizeCode(st) !== stats[i + 2]) return false;
  }
  return true;
}

/** The kept listing, when it is for these inputs and nothing it was made from changed. */
export function keptListing(provider: string, env: NodeJS.ProcessEnv, key: string): Snapshot | undefined {
  const path = fileOf(provider, env);
  // Most providers are not installed and have none: asked first, a missing file costs no exception.
  if (!existsSync(path)) return undefined;
  let stored: Stored;
  try {
    stored = JSON.parse(readFileSync(path, 'utf8')) as Stored;
  } catch {
    return undefined;
  }
  if (stored.version !== VERSION || stored.key !== key || !Array.isArray(stored.sessions)) return undefined;
  return unchanged(stored.paths) && sessionsUnchanged(stored.sessions, stored.stamps) && unchanged(stored.files) ? stored : undefined;
}

/**
 * Keeps a listing made from `stats` (taken before listing) and the session files the listing
 * saw. Not kept when a session lacks its turn count (it would never be counted again), when a
 * session file lies outside the trees (nothing would tell a new one there), or when a folder had
 * only just changed. Returns what it kept.
 */
export function keepListing(
  provider: string,
  env: NodeJS.ProcessEnv,
  key: string,
  inputs: ListingInputs,
  stats: Stats,
  seen: ReadonlyMap<string, { m: number; s: number }>,
  sessions: readonly SessionInfo[],
  listedAt: number,
): Snapshot | undefined {
  if (sessions.some((s) => s.units === undefined)) return undefined;
  const roots = inputs.trees.map((t) => (t.endsWith(sep) ? t : t + sep));
  for (const location of seen.keys()) if (!roots.some((r) => location.startsWith(r))) return undefined;
  for (let i = 0; i < stats.length; i += 3) if ((stats[i + 1] as number) > listedAt - SETTLED_MS) return undefined;
  const stamps: number[] = [];
  const listed = new Set<string>();
  for (const s of sessions) {
    const v = seen.get(s.location);
    if (!v) return undefined; // not a file the listing stat'ed
    stamps.push(v.m, v.s);
    listed.add(s.location);
  }
  const files: Stats = [];
  for (const [location, v] of seen) if (!listed.has(location)) files.push(location, v.m, v.s);
  const stored: Stored = { version: VERSION, key, paths: stats, stamps, files, sessions: [...sessions] };
  try {
    writeFileAtomic(fileOf(provider, env), asciiJson(stored), { mode: 0o600, privateDir: true });
  } catch {
    // read-only data dir: listing still works, just not faster next time
  }
  return stored;
}

// --- views ------------------------------------------------------------------------------------

const viewFile = (provider: string, name: string, env: NodeJS.ProcessEnv): string => childPath(dataDir(env), 'cache', `view-${provider}-${name}.txt`);

/** The view file's first line: which listing (its inputs) and which form of it (the view's own key). */
const viewHeader = (key: string, viewKey: string): string => asciiJson([VIEW_VERSION, key, viewKey]);

/**
 * Stats a kept text answers by: every path and, two numbers a path, its mtime and size code
 * (sizeCode; -1, -1 for a path that is missing).
 */
export type PathStamps = { readonly paths: readonly string[]; readonly numbers: readonly number[] };

/**
 * A kept text's file, when its first line is `header` and every path of its next two lines
 * still has its stamp: the bytes and where the text starts.
 */
function keptChecked(path: string, header: string): { bytes: Buffer; at: number; stamps: PathStamps } | undefined {
  if (!existsSync(path)) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  // The first three lines are ASCII (asciiJson): read as Latin-1 they are one-byte strings, as
  // the paths given to stat are, even when a title of the view makes the view a two-byte string.
  const pathsAt = header.length + 1;
  if (bytes[header.length] !== 10 || bytes.toString('latin1', 0, header.length) !== header) return undefined;
  const numbersAt = bytes.indexOf(10, pathsAt) + 1;
  const at = numbersAt === 0 ? 0 : bytes.indexOf(10, numbersAt) + 1;
  if (at === 0) return undefined;
  let paths: unknown;
  let numbers: unknown;
  try {
    paths = JSON.parse(bytes.toString('latin1', pathsAt, numbersAt - 1));
    numbers = JSON.parse(bytes.toString('latin1', numbersAt, at - 1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(paths) || !Array.isArray(numbers) || numbers.length !== paths.length * 2) return undefined;
  const stamps = { paths: paths as string[], numbers: numbers as number[] };
  return pathsUnchanged(stamps) ? { bytes, at, stamps } : undefined;
}

/** A kept text's file: its header, its stamps' two lines, the text. */
function keepChecked(path: string, header: string, stamps: PathStamps, text: string | Buffer): void {
  const head = `${header}\n${asciiJson(stamps.paths)}\n${JSON.stringify(stamps.numbers)}\n`;
  try {
    writeFileAtomic(path, typeof text === 'string' ? head + text : Buffer.concat([Buffer.from(head, 'latin1'), text]), { mode: 0o600, privateDir: true });
  } catch {
    // read-only data dir: made afresh next time too
  }
}

/**
 * A view kept with a listing, when it is for these inputs and this form, and nothing the listing
 * was made from changed: the file's first line names them, the next two hold every path the
 * listing was checked by (folders, other inputs, session files, other files) and its mtime and
 * size code, the rest is the view. With the stamps it was checked by.
 */
export function keptView(provider: string, env: NodeJS.ProcessEnv, key: string, name: string, viewKey: string): { text: string; stamps: PathStamps } | undefined {
  const file = viewFile(provider, name, env);
  const kept = keptChecked(file, viewHeader(key, viewKey));
  return kept && { text: kept.bytes.toString('utf8', kept.at), stamps: withOwnStamp(kept.stamps, file) };
}

/**
 * The stamps a view answers by, and the view file's own: what is made from the view (a page)
 * answers only while the view is the one it was made from, rewritten or not.
 */
function withOwnStamp(stamps: PathStamps, file: string): PathStamps {
  const own: Stats = [];
  pushStat(own, file);
  return { paths: [...stamps.paths, file], numbers: [...stamps.numbers, own[1] as number, own[2] as number] };
}

/** True when every path still has its mtime and size code (-1, -1: still missing). */
function pathsUnchanged({ paths, numbers }: PathStamps): boolean {
  for (let i = 0; i < paths.length; i++) {
    const mtime = numbers[2 * i];
    let st;
    try {
      st = statStamp(paths[i]!);
    } catch {
      return false;
    }
    if (st === undefined) {
      if (mtime !== -1) return false;
    } else if (st.mtimeMs !== mtime || sizeCode(st) !== numbers[2 * i + 1]) return false;
  }
  return true;
}

/**
 * Keeps `view`, a form of the listing `snapshot` holds, with the stats that listing was made
 * from (or checked by): the view then answers exactly while the listing would. Returns those
 * stats and the view file's own (withOwnStamp).
 */
export function keepView(provider: string, env: NodeJS.ProcessEnv, snapshot: Snapshot, name: string, viewKey: string, view: string): PathStamps {
  const paths: string[] = [];
  const numbers: number[] = [];
  const flat = (stats: Stats): void => {
    for (let i = 0; i < stats.length; i += 3) {
      paths.push(stats[i] as string);
      numbers.push(stats[i + 1] as number, stats[i + 2] as number);
    }
  };
  flat(snapshot.paths);
  snapshot.sessions.forEach((s, i) => {
    paths.push(s.location);
    numbers.push(snapshot.stamps[2 * i]!, snapshot.stamps[2 * i + 1]!);
  });
  flat(snapshot.files);
  const stamps = { paths, numbers };
  const file = viewFile(provider, name, env);
  keepChecked(file, viewHeader(snapshot.key, viewKey), stamps, view);
  return withOwnStamp(stamps, file);
}

// --- pages ------------------------------------------------------------------------------------
// A page is a command's output (or the part of it made from kept views), kept in
// `<data>/cache/page-<name>.txt` with the stamps of every view it was made from: a warm run checks
// them and writes what it read.

const PAGE_VERSION = 1;
const pageFile = (name: string, env: NodeJS.ProcessEnv): string => childPath(dataDir(env), 'cache', `page-${name}.txt`);
const pageHeader = (key: string): string => asciiJson([PAGE_VERSION, key]);

/** A kept page for `key` whose stamps all still hold: the file's bytes and where the page starts. */
export function keptPage(name: string, env: NodeJS.ProcessEnv, key: string): { bytes: Buffer; at: number } | undefined {
  return keptChecked(pageFile(name, env), pageHeader(key));
}

export function keepPage(name: string, env: NodeJS.ProcessEnv, key: string, stamps: PathStamps, page: Buffer): void {
  keepChecked(pageFile(name, env), pageHeader(key), stamps, page);
}
