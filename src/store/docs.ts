// Units as the index stores them: refs are not stored (display ids change as sessions come and
// go) but rebuilt at query time from (source, session id, index). Whatever reads units —
// the file index or the in-memory `--no-index` path — goes through these functions, so both
// hold exactly the same rows.
import { unitFailed } from '../memory/failure.js';
import { nodeCrypto } from '../session/lazy-crypto.js';
import type { Part, Unit } from '../memory/types.js';

export type StatusName = 'success' | 'failure' | 'unknown';

/**
 * `group`: parts that are one message for `--operator and` share it — a tool call and the output
 * answering it (the call's part number); every other part is a group of its own (its number).
 */
export type PartDoc = { n: number; kind: string; label: string | null; weight: number; text: string; group: number; cut?: CutText };

/**
 * A text the index cut (cutOf): `text` is `head + CUT_MARK + tail`, kept unjoined until
 * then. The mark's '…' is the one character of such a text beyond Latin-1, so joined it is a
 * two-byte string (a copy of two bytes a character) that encodes to UTF-8 at an eighth of the
 * speed of its pieces and that the gram keys' search for non-ASCII characters reads whole; nearly
 * every long tool output is cut, and these were most of the text a cold build writes. The pieces
 * are encoded on their own (digestAndText) and their keys taken around the mark (KeySet.addUtf8Parts).
 */
export type CutText = { head: string; tail: string };

/** What stands for the middle of a text the index cut. */
export const CUT_MARK = '\n…\n';
const CUT_MARK_BYTES = Buffer.from(CUT_MARK, 'utf8');

export type UnitDoc = {
  index: number;
  at: number | null;
  atText: string | null;
  cwd: string | null;
  status: StatusName;
  title: string;
  /** 0 while an agent turn is still running, else 1. */
  complete: number;
  parts: PartDoc[];
  hash: string;
  /** The parts' texts joined by NUL, in UTF-8, until the unit is packed into its chunk. */
  text?: Buffer;
  /** With `text`: each part's bytes in it (a part of as many bytes as characters is ASCII). */
  textBytes?: number[];
};

export type SessionDoc = { source: string; id: string; title: string | null; cwd: string | null; updatedAt: string | null; location: string };

/**
 * How much a part counts in ranking: what people said and typed outranks what tools printed.
 * (BM25 scores are negative; a higher weight makes a match rank higher.)
 */
export const PART_WEIGHT: Record<string, number> = {
  user: 3,
  assistant: 3,
  command: 3,
  tool_call: 2,
  prompt: 1,
  output: 1,
  tool_output: 1,
  thinking: 1,
};

/**
 * Characters of one part that are indexed: the head and the tail of anything longer. Tool and
 * command output is where the megabytes are (file dumps, logs, base64); its head and tail hold
 * what people look for (the command's echo, the error at the end) and keep the build fast.
 */
const OUTPUT_KINDS = new Set(['output', 'tool_output']);
const LIMITS = { output: { max: 16 * 1024, tail: 4 * 1024 }, other: { max: 64 * 1024, tail: 16 * 1024 } };

/** The head and tail of a text the index cuts, or undefined when it is kept whole. */
function cutOf(kind: string, text: string): CutText | undefined {
  if (text.length <= LIMITS.output.max) return undefined; // most parts: no limit to look up
  const { max, tail } = OUTPUT_KINDS.has(kind) ? LIMITS.output : LIMITS.other;
  if (text.length <= max) return undefined;
  return { head: text.slice(0, max - tail), tail: text.slice(-tail) };
}

/** Most texts start with a printable ASCII character; the others are looked through (not with trim(): that copies a long output to look at its ends). */
const isBlank = (text: string): boolean => {
  const first = text.charCodeAt(0);
  return !(first > 32 && first < 127) && !/\S/.test(text);
};

/** A part's text as the index keeps it, or undefined for a blank part, which is not kept. */
export function keptText(kind: string, text: string): string | undefined {
  if (isBlank(text)) return undefined;
  const cut = cutOf(kind, text);
  return cut ? cut.head + CUT_MARK + cut.tail : text;
}

/** Each part's group: a tool output joins the call with its call id. */
function partDocs(parts: Part[]): PartDoc[] {
  let calls: Map<string, number> | undefined; // most units (every terminal record) have no call
  const out: PartDoc[] = [];
  for (const p of parts) {
    let group = p.n;
    if (p.callId !== undefined && (p.kind === 'tool_call' || p.kind === 'tool_output')) {
      const call = (calls ??= new Map()).get(p.callId);
      if (call === undefined) calls.set(p.callId, p.n);
      else group = call;
    }
    if (isBlank(p.text)) continue;
    const doc: PartDoc = { n: p.n, kind: p.kind, label: p.label ?? null, weight: PART_WEIGHT[p.kind] ?? 1, text: p.text, group };
    const cut = cutOf(p.kind, p.text);
    if (cut) {
      // Joined only if something reads its characters: V8 keeps the join as a pair of pointers.
      doc.text = cut.head + CUT_MARK + cut.tail;
      doc.cut = cut;
    }
    out.push(doc);
  }
  return out;
}

/** Failure as memory/failure.ts defines it; success needs a zero exit code or a finished turn. */
export function statusOf(unit: Unit): StatusName {
  if (unitFailed(unit)) return 'failure';
  if (unit.exitCode === 0 || unit.complete === true) return 'success';
  return 'unknown';
}

/** Digits of `s` from `at` to `at + n` as a number, or -1 when one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * `2026-10-01T09:00:00Z` and `…00.123Z`, the form every log and agent writes, read directly:
 * Date.parse tokenises its input for every format it knows, which was a tenth of building a
 * terminal record's doc. Anything else (offsets, other precisions, odd dates) goes to Date.parse.
 */
function utcIsoMs(s: string): number | undefined {
  const n = s.length;
  if ((n !== 20 && n !== 24) || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':' || (n === 24 && s[19] !== '.')) return undefined;
  const y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2), h = digits(s, 11, 2), mi = digits(s, 14, 2), se = digits(s, 17, 2);
  const ms = n === 24 ? digits(s, 20, 3) : 0;
  // Days past the 28th are left to Date.parse, which knows which months have them; so are years
  // before 100, which Date.UTC would take as 19xx.
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > 28 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59 || ms < 0) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, se, ms);
}

export function epochMs(iso: string | undefined): number | null {
  if (!iso) return null;
  const ms = utcIsoMs(iso) ?? Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** `fallbackAt`: when a unit carries no time of its own (the session's last activity). */
export function unitDoc(unit: Unit, fallbackAt?: string): UnitDoc {
  const atText = unit.at ?? fallbackAt ?? null;
  const doc: UnitDoc = {
    index: unit.index,
    at: epochMs(atText ?? undefined),
    atText,
    cwd: unit.cwd ?? null,
    status: statusOf(unit),
    title: unit.title,
    complete: unit.complete === false ? 0 : 1,
    parts: partDocs(unit.parts),
    hash: '',
  };
  digestAndText(doc);
  return doc;
}

/** Where a unit's digest and text are encoded, reused from unit to unit (grown as needed). */
let scratch: Buffer | undefined;

/**
 * A digest of every field and part text, to tell a changed unit from an unchanged one, and the
 * unit's text as its chunk stores it (the parts' texts joined by NUL, UTF-8): both from one
 * encoding of the text. The digest and the chunk each encoded every indexed character before,
 * and the chunk joined its parts into one string to do it (a copy, of two bytes a character as
 * soon as one part held a '…').
 */
function digestAndText(doc: UnitDoc): void {
  let head = `${doc.index}\u0000${doc.at}\u0000${doc.atText}\u0000${doc.cwd}\u0000${doc.status}\u0000${doc.complete}\u0000${doc.title}\u0000${doc.parts.length}`;
  let chars = 0;
  for (const p of doc.parts) {
    head += `\u0000${p.n}\u0000${p.kind}\u0000${p.label}\u0000${p.group}\u0000${p.text.length}`;
    chars += p.text.length + 1;
  }
  head += '\u0000';
  // UTF-8 needs at most three bytes for a UTF-16 code unit.
  const room = 3 * (head.length + chars);
  if (scratch === undefined || scratch.length < room) scratch = Buffer.allocUnsafeSlow(Math.max(room, 2 * (scratch?.length ?? 32 * 1024)));
  const buf = scratch;
  const start = buf.write(head, 0, 'utf8');
  let at = start;
  const textBytes = new Array<number>(doc.parts.length);
  for (let i = 0; i < doc.parts.length; i++) {
    if (i > 0) buf[at++] = 0;
    const part = doc.parts[i]!;
    const cut = part.cut;
    let n: number;
    if (cut) {
      n = writePiece(buf, at, cut, 'head');
      n += CUT_MARK_BYTES.copy(buf, at + n);
      n += writePiece(buf, at + n, cut, 'tail');
      part.text = cut.head + CUT_MARK + cut.tail;
    } else n = buf.write(part.text, at, 'utf8');
    textBytes[i] = n;
    at += n;
  }
  doc.hash = nodeCrypto().hash('sha1', buf.subarray(0, at), 'base64');
  const text = Buffer.allocUnsafe(at - start);
  buf.copy(text, 0, start, at);
  doc.text = text;
  doc.textBytes = textBytes;
}

/**
 * Writes one piece of a cut text; an ASCII piece is then made a string of its own from the bytes
 * written: as a slice it held the whole text it was cut from (most of a tool output) for as long
 * as the doc lived, which a batch of docs waiting to be written made a hundred megabytes at 300 MB.
 */
function writePiece(buf: Buffer, at: number, cut: CutText, piece: 'head' | 'tail'): number {
  const text = cut[piece];
  const n = buf.write(text, at, 'utf8');
  if (n === text.length) cut[piece] = buf.toString('latin1', at, at + n);
  return n;
}

/** A unit's text as its chunk stores it: the one `unitDoc` encoded, or encoded now. */
export function unitText(doc: UnitDoc): Buffer {
  return doc.text ?? Buffer.from(doc.parts.map((p) => p.text).join('\u0000'), 'utf8');
}

/** Each part's bytes in unitText(doc). */
export function unitTextBytes(doc: UnitDoc): number[] {
  return doc.textBytes ?? doc.parts.map((p) => Buffer.byteLength(p.text, 'utf8'));
}
