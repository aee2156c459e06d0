// Refs: `source/session[/index[/pN]]`, e.g. `terminal/current/2`, `claude/3f2a9c1d/3/p2`.
// `index` may be a list for show (`3-5,7`). The source is any name the source table knows,
// so new providers need no change here.
import { SivtrError } from '../errors.js';

export type Ref = {
  source: string;
  session: string;
  /** Absolute 1-based indices (terminal record index or agent turn number). */
  indices?: number[];
  part?: number;
};

export function looksLikeRef(text: string): boolean {
  return /^[a-z][a-z0-9_-]*\/[^/]+/i.test(text);
}

function parseIndexList(text: string, ref: string): number[] {
  const out: number[] = [];
  for (const piece of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(piece.trim());
    if (!m) throw badRef(ref, `"${text}" is not an index`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a < 1 || b < 1) throw badRef(ref, 'indices start at 1');
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    if (hi - lo > 10_000) throw badRef(ref, 'range too large');
    for (let i = lo; i <= hi; i++) out.push(i);
  }
  return out;
}

function badRef(ref: string, why: string): SivtrError {
  return new SivtrError(`invalid ref "${ref}": ${why}`, 'use source/session[/index[/pN]], e.g. terminal/current/2 or claude/3f2a9c1d/3/p2');
}

export function parseRef(text: string): Ref {
  const pieces = text.split('/');
  if (pieces.length < 2 || pieces.length > 4 || pieces.some((p) => p === '')) throw badRef(text, 'expected 2 to 4 parts');
  const [source, session, index, part] = pieces as [string, string, string?, string?];
  const ref: Ref = { source, session };
  if (index !== undefined) ref.indices = parseIndexList(index, text);
  if (part !== undefined) {
    const m = /^p(\d+)$/i.exec(part);
    if (!m || Number(m[1]) < 1) throw badRef(text, `"${part}" is not a part (p1, p2, …)`);
    if (ref.indices!.length !== 1) throw badRef(text, 'a part needs a single index');
    ref.part = Number(m[1]);
  }
  return ref;
}

/** The ref of one part of a unit (`terminal/3f2a/4/p3`, `history/12/1/p3`). */
export function partRef(unit: { source: string; session: string; index: number }, part: number): string {
  return formatRef(unit.source, unit.session, unit.index, part);
}

export function formatRef(source: string, session: string, index?: number, part?: number): string {
  let ref = `${source}/${session}`;
  if (index !== undefined) ref += `/${index}`;
  if (part !== undefined) ref += `/p${part}`;
  return ref;
}
