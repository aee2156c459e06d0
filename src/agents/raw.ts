// The records behind a block, as the agent wrote them (`show … --raw`): the lines of a JSONL
// file verbatim, the rows of a database as JSON objects of their columns, the values a JSON
// pointer names in a one-document file or a database cell holding one (re-serialised: a
// document's own spacing inside a value is not kept by JSON.parse).
import { readFileSync } from 'node:fs';
import { SivtrError } from '../errors.js';
import { jsonlLines } from '../session/jsonl.js';
import { openReadOnly } from './sqlite.js';
import type { RawLocator, RowDocument } from './types.js';
import { withDecompressed, zstdDecompress } from './zstd.js';

/** The text of each record a locator names, in the order the locator lists them. */
export async function readRawRecords(locator: RawLocator): Promise<string[]> {
  if ('lines' in locator) return readLines(locator.file, locator.lines);
  if ('pointers' in locator) return readPointers(locator.file, locator.pointers);
  if (locator.document) return readRowDocument(locator.db, locator.table, locator.column, locator.ids, locator.document);
  return readRows(locator.db, locator.table, locator.column, locator.ids);
}

/** How a locator's records were changed on the way out, for a note beside them (a decompressed cell). */
export function rawTransform(locator: RawLocator): string | undefined {
  if (!('db' in locator) || !locator.document?.compression) return undefined;
  return `decompressed from the ${locator.document.compression}-compressed \`${locator.document.column}\` column of ${locator.table} row ${locator.ids.join(', ')}`;
}

/** Several locators (a range of parts): their records once each, in the order first named. */
export async function readRawRecordsOf(locators: readonly RawLocator[]): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const locator of locators) {
    const key = JSON.stringify(locator);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(...(await readRawRecords(locator)));
  }
  return out;
}

function gone(where: string, why: string): SivtrError {
  return new SivtrError(`the raw record in ${where} is gone (${why})`, 'the transcript changed since it was read — show the part again');
}

async function readLines(file: string, lines: readonly number[]): Promise<string[]> {
  if (file.endsWith('.zst')) return withDecompressed(file, (plain) => readLines(plain, lines));
  const wanted = new Set(lines);
  const last = Math.max(...lines);
  const found = new Map<number, string>();
  let n = 0;
  try {
    for await (const { line } of jsonlLines(file)) {
      n++;
      if (wanted.has(n)) found.set(n, line.endsWith('\r') ? line.slice(0, -1) : line);
      if (n >= last) break;
    }
  } catch (error) {
    throw gone(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  return lines.map((l) => {
    const text = found.get(l);
    if (text === undefined) throw gone(file, `it has ${n} lines, not ${l}`);
    return text;
  });
}

/** RFC 6901: `/a/0/b`, with `~1` for `/` and `~0` for `~`. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let value = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) value = value[Number(key)];
    else if (typeof value === 'object' && value !== null) value = (value as Record<string, unknown>)[key];
    else return undefined;
  }
  return value;
}

/** A JSON pointer from keys and indexes. */
export const jsonPointer = (...keys: (string | number)[]): string => keys.map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

function readPointers(file: string, pointers: readonly string[]): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw gone(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  return pointers.map((p) => {
    const value = resolvePointer(doc, p);
    if (value === undefined) throw gone(file, `nothing at ${p}`);
    return JSON.stringify(value);
  });
}

/** Blobs are named by size (a toJSON'd Buffer would be a list of bytes); big integers as numbers. */
function rowValue(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (Buffer.isBuffer(original)) return `[${original.length} bytes]`;
  return typeof value === 'bigint' ? Number(value) : value;
}

async function selectRows(path: string, table: string, column: string, ids: readonly (string | number)[]): Promise<Record<string, unknown>[]> {
  let db;
  try {
    db = await openReadOnly(path);
  } catch (error) {
    throw gone(path, (error as Error).message);
  }
  try {
    const stmt = db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}" WHERE "${column.replace(/"/g, '""')}" = ?`);
    return ids.map((id) => {
      const row = stmt.get(id) as Record<string, unknown> | undefined;
      if (!row) throw gone(path, `no ${table} row ${id}`);
      return row;
    });
  } finally {
    db.close();
  }
}

async function readRows(path: string, table: string, column: string, ids: readonly (string | number)[]): Promise<string[]> {
  return (await selectRows(path, table, column, ids)).map((row) => JSON.stringify(row, rowValue));
}

async function readRowDocument(path: string, table: string, column: string, ids: readonly (string | number)[], document: RowDocument): Promise<string[]> {
  const out: string[] = [];
  for (const [i, row] of (await selectRows(path, table, column, ids)).entries()) {
    const where = `${path} (${table} row ${ids[i]})`;
    const cell = row[document.column];
    let doc: unknown;
    try {
      const bytes = typeof cell === 'string' ? Buffer.from(cell) : cell instanceof Uint8Array ? cell : undefined;
      if (!bytes) throw new Error(`no ${document.column} in it`);
      const plain = document.compression === 'zstd' ? await zstdDecompress(bytes) : bytes;
      doc = JSON.parse(Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString('utf8'));
    } catch (error) {
      throw gone(where, (error as Error).message);
    }
    for (const p of document.pointers) {
      const value = resolvePointer(doc, p);
      if (value === undefined) throw gone(where, `nothing at ${p}`);
      out.push(JSON.stringify(value));
    }
  }
  return out;
}
