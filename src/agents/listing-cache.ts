// Listing cache: session summaries (and turn counts, once a session was parsed) remembered by
// (location, mtime, size) in `<data>/cache/agents-<provider>.json`, so a warm `sivtr sessions`
// costs a readdir and a stat per file. It is a cache: deleting it loses nothing, and any read
// or write failure just means working without it.
import { existsSync, readFileSync } from 'node:fs';
import { childPath, writeFileAtomic } from '../files.js';
import { join } from 'node:path';
import { dataDir } from '../session/paths.js';
import type { TranscriptSummary, SummaryMemo } from './types.js';

export const LISTING_VERSION = 4; // 3: summaries may name a parent; Gemini titles skip the injected context. 4: database rows carry `version`

/** A summary without what the entry's key and file name already say (smaller file, faster load). */
type Stored = Omit<TranscriptSummary, 'provider' | 'location'>;
type CacheEntry = { m: number; s: number; summary: Stored | null; turns?: number };

function pack(summary: TranscriptSummary): Stored {
  const { provider: _provider, location: _location, ...rest } = summary;
  const cwds = rest.cwds;
  if (cwds && (cwds.length === 0 || (cwds.length === 1 && cwds[0] === rest.cwd))) delete rest.cwds;
  return rest;
}

/** `<data>/cache`, joined once for the data dir in use: every provider's listing loads its cache. */
let cacheDir: { data: string; dir: string } | undefined;
function cacheDirOf(env: NodeJS.ProcessEnv): string {
  const data = dataDir(env);
  if (cacheDir?.data !== data) cacheDir = { data, dir: join(data, 'cache') };
  return cacheDir.dir;
}

/**
 * JSON with every character outside ASCII written as a \\u escape. One such character (the `…` of
 * a cut title, a CJK title) made the whole file a two-byte string when read, and V8 parses those
 * slower: over 300 sessions' caches a warm `sessions --global` spent 9.1 M instructions in
 * JSON.parse, 6.1 M with the file ASCII (callgrind). JSON.parse reads the escapes back as the
 * same characters.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class ListingCache implements SummaryMemo {
  private entries: Record<string, CacheEntry> = {};
  /** (mtime, size) of every location seen in this run, so callers need not stat again. */
  private readonly seen = new Map<string, { m: number; s: number }>();
  private dirty = false;

  private constructor(
    private readonly provider: string,
    private readonly path: string,
  ) {}

  static load(provider: string, env: NodeJS.ProcessEnv): ListingCache {
    const cache = new ListingCache(provider, childPath(cacheDirOf(env), `agents-${provider}.json`));
    // Most providers are not installed and have no cache: asked first, a missing file costs no
    // exception (a thrown ENOENT with its message and stack is ~60 K instructions, and a warm
    // `sessions` met ~20 of them).
    if (!existsSync(cache.path)) return cache;
    try {
      const text = readFileSync(cache.path, 'utf8');
      const parsed = JSON.parse(text) as { version?: number; entries?: Record<string, CacheEntry> };
      if (parsed.version === LISTING_VERSION && parsed.entries) cache.entries = parsed.entries;
      // Written before it was kept ASCII (asciiJson): written again, once, as ASCII.
      if (Buffer.byteLength(text) !== text.length) cache.dirty = true;
    } catch {
      // no cache yet, or an unreadable one: start empty
    }
    return cache;
  }

  summary(location: string, mtimeMs: number, size: number, compute: () => TranscriptSummary | undefined): TranscriptSummary | undefined {
    this.seen.set(location, { m: mtimeMs, s: size });
    const hit = this.entries[location];
    if (hit && hit.m === mtimeMs && hit.s === size) return hit.summary ? this.unpack(location, hit.summary) : undefined;
    const summary = compute();
    this.entries[location] = { m: mtimeMs, s: size, summary: summary ? pack(summary) : null };
    this.dirty = true;
    return summary;
  }

  private unpack(location: string, stored: Stored): TranscriptSummary {
    return { provider: this.provider, location, ...stored, cwds: stored.cwds ?? (stored.cwd ? [stored.cwd] : []) };
  }

  /** Every location discovery stat'ed in this run, with the (mtime, size) it saw. */
  seenFiles(): ReadonlyMap<string, { m: number; s: number }> {
    return this.seen;
  }

  has(location: string, mtimeMs: number, size: number): boolean {
    const hit = this.entries[location];
    return hit !== undefined && hit.m === mtimeMs && hit.s === size;
  }

  /** A turn count remembered for the version of the file seen by this run's discovery, if any. */
  turns(location: string): number | undefined {
    const v = this.seen.get(location);
    const hit = this.entries[location];
    return v && hit && hit.m === v.m && hit.s === v.s ? hit.turns : undefined;
  }

  /** Remembers a turn count for the version discovery saw. */
  setTurns(location: string, turns: number): void {
    const version = this.seen.get(location);
    const hit = this.entries[location];
    if (!version || !hit || hit.m !== version.m || hit.s !== version.s || hit.turns === turns) return;
    hit.turns = turns;
    this.dirty = true;
  }

  /** Writes the cache; after a complete discovery, entries of vanished files are dropped. */
  save(discoveryComplete: boolean): void {
    if (discoveryComplete) {
      for (const key of Object.keys(this.entries)) {
        if (!this.seen.has(key)) {
          delete this.entries[key];
          this.dirty = true;
        }
      }
    }
    if (!this.dirty) return;
    try {
      writeFileAtomic(this.path, asciiJson({ version: LISTING_VERSION, entries: this.entries }), { mode: 0o600, privateDir: true });
      this.dirty = false;
    } catch {
      // read-only data dir: listing still works, just not faster next time
    }
  }
}
