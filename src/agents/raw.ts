// The records behind a block, as the agent wrote them (`show … --raw`): the lines of a JSONL
// file verbatim, the rows of a database as JSON objects of their columns, the values a JSON
// pointer names in a one-document file (re-serialised: a document's own spacing inside a value
// is not kept by JSON.parse).
import { readFileSync } from 'node:fs';
import { SivtrError } from '../errors.js';
import { jsonlLines } from '../session/jsonl.js';
import { openReadOnly } from './sqlite.js';
import type { RawLocator } from './types.js';
import { withDecompressed } from './zstd.js';

/** The text of each record a locator names, in the order the locator lists them. */
export async function readRawRecords(locator: RawLocator): Promise<string[]> {
  if ('lines' in locator) return readLines(locator.file, locator.lines);
  if ('pointers' in locator) return readPointers(locator.file, locator.pointers);
  return readRows(locator.db, locator.table, locator.column, locator.ids);
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

async function readRows(path: string, table: string, column: string, ids: readonly (string | number)[]): Promise<string[]> {
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
      return JSON.stringify(row, rowValue);
    });
  } finally {
    db.close();
  }
}
