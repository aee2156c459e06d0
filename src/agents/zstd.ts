// Zstandard-compressed transcripts (Codex cold storage writes `rollout-*.jsonl.zst`). Node 20
// has no zstd in zlib, so the pure-JS `fzstd` decoder is loaded on use. Decompression streams:
// a whole rollout goes to a private temporary file that the one JSONL reader then reads, and
// listing decompresses only a bounded head.
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Decompressor = { push(chunk: Uint8Array, final?: boolean): void; ondata: (data: Uint8Array, final?: boolean) => void };

async function decompressor(): Promise<new (ondata?: (data: Uint8Array, final?: boolean) => void) => Decompressor> {
  const fzstd = await import('fzstd');
  return fzstd.Decompress as unknown as new (ondata?: (data: Uint8Array, final?: boolean) => void) => Decompressor;
}

/** Feeds a compressed file to `sink` chunk by chunk until the end or until `sink` returns false. */
async function inflate(path: string, sink: (data: Uint8Array) => boolean): Promise<void> {
  const Decompress = await decompressor();
  let more = true;
  const d = new Decompress((data) => {
    if (more && data.length > 0) more = sink(data);
  });
  const stream = createReadStream(path, { highWaterMark: 1 << 18 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      d.push(chunk);
      if (!more) return;
    }
    d.push(new Uint8Array(0), true);
  } finally {
    stream.destroy();
  }
}

/** The first `max` decompressed bytes, as text. */
export async function zstdHead(path: string, max: number): Promise<{ text: string; complete: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  let complete = true;
  await inflate(path, (data) => {
    parts.push(Buffer.from(data));
    size += data.length;
    if (size >= max) {
      complete = false;
      return false;
    }
    return true;
  });
  return { text: Buffer.concat(parts).subarray(0, max).toString('utf8'), complete };
}

/** Copies still on disk: a process that exits part way (Ctrl-C while indexing exits at once) never reaches their `finally`. */
const pending = new Set<string>();
const removePending = (): void => {
  // maxRetries: a thread still writing a copy inside may add an entry while the folder is removed
  for (const dir of pending) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
};

function track(dir: string): void {
  if (pending.size === 0) process.once('exit', removePending);
  pending.add(dir);
}

function untrack(dir: string): void {
  pending.delete(dir);
  if (pending.size === 0) process.removeListener('exit', removePending);
}

/** Where this thread's copies go: the temp dir, or the folder given by keepCopiesIn. */
let copyRoot: string | undefined;

/**
 * A folder for another thread's copies, removed when this process exits. The index's helper
 * thread keeps its copies there: when the process exits with the helper still reading, the
 * thread is stopped without its own exit handler running, and only this thread can clean up.
 */
export function copyFolderForThread(): { dir: string; release: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sivtr-zst-'));
  track(dir);
  return {
    dir,
    release: () => {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      untrack(dir);
    },
  };
}

/** Makes this thread put its copies in `dir` (made by copyFolderForThread in the thread that started it). */
export function keepCopiesIn(dir: string): void {
  copyRoot = dir;
}

/** Runs `use` on a decompressed copy of the file, removed afterwards, or at exit at the latest. */
export async function withDecompressed<T>(path: string, use: (plainPath: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(copyRoot ?? tmpdir(), 'sivtr-zst-'));
  track(dir);
  const plain = join(dir, 'rollout.jsonl');
  try {
    const fd = openSync(plain, 'w', 0o600);
    try {
      await inflate(path, (data) => {
        writeSync(fd, data);
        return true;
      });
    } finally {
      closeSync(fd);
    }
    return await use(plain);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    untrack(dir);
  }
}

/** A whole zstd frame held in memory (a database cell), decompressed at once. */
export async function zstdDecompress(data: Uint8Array): Promise<Uint8Array> {
  const fzstd = await import('fzstd');
  return fzstd.decompress(data);
}
