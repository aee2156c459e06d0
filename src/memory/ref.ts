// Refs: `source/session[/index[/pN]]`, e.g. `terminal/current/2`, `claude/3f2a9c1d/3/p2`.
// `index` may be a list for show (`3-5,7`); a part may be a list too (`p2-4`, `p5,7`), within
// one unit. The source is any name the source table knows, so new providers need no change here.
import { SivtrError } from '../errors.js';

export type Ref = {
  source: string;
  session: string;
  /** Absolute 1-based indices (terminal record index or agent turn number). */
  indices?: number[];
  /** 1-based part numbers in the order written (`p2-4` → 2,3,4); only with a single index. */
  parts?: number[];
};

export function looksLikeRef(text: string): boolean {
  return /^[a-z][a-z0-9_-]*\/[^/]+/i.test(text);
}

function parseIndexList(text: string, ref: string, what = 'an index', prefix = ''): number[] {
  const out: number[] = [];
  const p = prefix ? `(?:${prefix})?` : '';
  const piece = new RegExp(`^${p}(\\d+)(?:-${p}(\\d+))?$`, 'i');
  for (const item of text.split(',')) {
    const m = piece.exec(item.trim());
    if (!m) throw badRef(ref, `"${text}" is not ${what}`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a < 1 || b < 1) throw badRef(ref, 'indices start at 1');
    // A range written backwards is a slip, not an order (`show` prints parts and turns in the
    // order they happened): naming the fix beats silently reading `p4-2` as `p2-4`.
    if (a > b) throw new SivtrError(`invalid ref "${ref}": ${prefix}${a}-${b} runs backwards`, `write it ${prefix}${b}-${a}`, 2);
    if (b - a > 10_000) throw badRef(ref, 'range too large');
    for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}

function badRef(ref: string, why: string): SivtrError {
  return new SivtrError(`invalid ref "${ref}": ${why}`, 'use source/session[/index[/pN]], e.g. terminal/current/2, claude/3f2a9c1d/3/p2 or …/3/p2-4');
}

export function parseRef(text: string): Ref {
  const pieces = text.split('/');
  if (pieces.length < 2 || pieces.length > 4 || pieces.some((p) => p === '')) throw badRef(text, 'expected 2 to 4 parts');
  const [source, session, index, part] = pieces as [string, string, string?, string?];
  const ref: Ref = { source, session };
  if (index !== undefined) ref.indices = parseIndexList(index, text);
  if (part !== undefined) {
    if (!/^p/i.test(part)) throw badRef(text, `"${part}" is not a part (p1, p2-4, p5,7)`);
    const parts = parseIndexList(part.slice(1), text, 'a part (p1, p2-4, p5,7)', 'p');
    if (ref.indices!.length !== 1) throw badRef(text, 'a part needs a single index');
    ref.parts = [...new Set(parts)];
  }
  return ref;
}

/** `2,3,4,7` → `p2-4,7`: the shortest spelling of a part list. */
export function partsSpec(parts: readonly number[]): string {
  const pieces: string[] = [];
  for (let i = 0; i < parts.length; ) {
    let j = i;
    while (j + 1 < parts.length && parts[j + 1] === parts[j]! + 1) j++;
    pieces.push(j === i ? `${parts[i]}` : `${parts[i]}-${parts[j]}`);
    i = j + 1;
  }
  return `p${pieces.join(',')}`;
}

/** The ref of several parts of one unit (`claude/3f2a9c1d/3/p2-4`). */
export function partsRef(unit: { source: string; session: string; index: number }, parts: readonly number[]): string {
  return parts.length === 1 ? partRef(unit, parts[0]!) : `${formatRef(unit.source, unit.session, unit.index)}/${partsSpec(parts)}`;
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
