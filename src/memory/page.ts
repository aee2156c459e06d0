// Paged reads of long text (a tool output of megabytes): a page of at most N characters from an
// offset, and a cursor that names where the next page starts. The cursor carries a fingerprint
// of the text being paged, so it refuses to continue once that text changed underneath it (the
// transcript was rewritten, the record replaced): pages of two different texts never get joined.
// A session that only grew past what is paged keeps its cursors valid, so paging an earlier turn
// of a session that is still running works.
import { nodeCrypto } from '../session/lazy-crypto.js';
import { SivtrError, UsageError } from '../errors.js';

export const DEFAULT_MAX_CHARS = 32_000;

/** What is paged: the ref it came from and the form of its text (`text`, `ansi`, `raw`). */
export type PageSubject = { ref: string; view: string };

export type Page = {
  text: string;
  /** 0-based offset of the page's first character (UTF-16 code units, as JavaScript counts). */
  offset: number;
  /** Offset just past the page. */
  end: number;
  total: number;
  /** Present when more text follows the page. */
  nextCursor?: string;
};

type CursorBody = { v: 1; ref: string; view: string; offset: number; total: number; fp: string };

export function fingerprint(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeCursor(subject: PageSubject, offset: number, text: string): string {
  const body: CursorBody = { v: 1, ref: subject.ref, view: subject.view, offset, total: text.length, fp: fingerprint(text) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export type Cursor = Omit<CursorBody, 'v'>;

export function decodeCursor(cursor: string): Cursor {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  const b = body as Partial<CursorBody> | undefined;
  if (!b || b.v !== 1 || typeof b.ref !== 'string' || typeof b.view !== 'string' || typeof b.offset !== 'number' || typeof b.total !== 'number' || typeof b.fp !== 'string' || b.offset < 0) {
    throw new UsageError('--cursor is not a cursor sivtr printed', 'copy the whole --cursor value from the "continue with" line');
  }
  return { ref: b.ref, view: b.view, offset: b.offset, total: b.total, fp: b.fp };
}

/** A cut that does not split a surrogate pair (an emoji stays whole on one page). */
function safeEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return Math.min(Math.max(end, 0), text.length);
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * The page of `text` from `offset` (or from a cursor, checked against the text), at most
 * `maxChars` long; 0 = no limit.
 */
export function pageOf(text: string, subject: PageSubject, opts: { maxChars: number; cursor?: Cursor }): Page {
  let offset = 0;
  if (opts.cursor) {
    const c = opts.cursor;
    if (c.view !== subject.view) throw new UsageError(`this cursor pages the ${c.view} form of ${c.ref}, not the ${subject.view} form`, 'give the options of the command that printed the cursor');
    if (c.total !== text.length || c.fp !== fingerprint(text)) {
      throw new SivtrError(`${c.ref} changed since this cursor was made`, `start again without --cursor: \`sivtr show ${c.ref}\``);
    }
    offset = Math.min(c.offset, text.length);
  }
  if (opts.maxChars < 0 || !Number.isInteger(opts.maxChars)) throw new UsageError(`--max-chars ${opts.maxChars} is not a count of characters`, 'give a whole number, 0 for no limit');
  let end = opts.maxChars === 0 ? text.length : safeEnd(text, offset + opts.maxChars);
  if (end <= offset && offset < text.length) end = Math.min(offset + 2, text.length); // a page holds at least one character
  const page: Page = { text: text.slice(offset, end), offset, end, total: text.length };
  if (end < text.length) page.nextCursor = encodeCursor(subject, end, text);
  return page;
}
