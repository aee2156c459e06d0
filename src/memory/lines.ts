// Line filters applied after a text is assembled: `--regex` keeps matching lines, then
// `--lines` picks 1-based lines (negative = from the end); out-of-range lines are ignored.
import { SivtrError } from '../errors.js';

type Range = { from?: number; to?: number };

const NUMBER = /^-?\d+$/;

export function parseLineSpec(spec: string): Range[] {
  const ranges: Range[] = [];
  for (const piece of spec.split(',')) {
    const part = piece.trim();
    const colon = part.indexOf(':');
    if (colon === -1) {
      if (!NUMBER.test(part) || part === '0' || part === '-0') throw badSpec(spec);
      ranges.push({ from: Number(part), to: Number(part) });
      continue;
    }
    const a = part.slice(0, colon).trim();
    const b = part.slice(colon + 1).trim();
    if ((a !== '' && !NUMBER.test(a)) || (b !== '' && !NUMBER.test(b)) || (a === '' && b === '')) throw badSpec(spec);
    if (a === '0' || b === '0') throw badSpec(spec);
    ranges.push({ from: a === '' ? undefined : Number(a), to: b === '' ? undefined : Number(b) });
  }
  return ranges;
}

function badSpec(spec: string): SivtrError {
  return new SivtrError(`invalid line spec "${spec}"`, 'use 5, 1:5, 1,3,8:12 or -20: (last 20 lines)');
}

/** 0-based indices selected by the spec, in spec order, out-of-range ones dropped. */
function pickIndices(ranges: Range[], count: number): number[] {
  const at = (n: number) => (n < 0 ? count + n : n - 1);
  const picked: number[] = [];
  for (const { from, to } of ranges) {
    const start = Math.max(0, from === undefined ? 0 : at(from));
    const end = Math.min(count - 1, to === undefined ? count - 1 : at(to));
    for (let i = start; i <= end; i++) picked.push(i);
  }
  return picked;
}

export type LineFilter = { regex?: string; ignoreCase?: boolean; lines?: string };

/** `plain` decides what matches; `shown` (the same text, maybe coloured) is what is kept. */
export function filterLines(shown: string, filter: LineFilter, plain: string = shown): string {
  if (filter.regex === undefined && filter.lines === undefined) return shown;
  let shownLines = shown.split('\n');
  let plainLines = plain.split('\n');
  if (plainLines.length !== shownLines.length) plainLines = shownLines;
  if (filter.regex !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(filter.regex, filter.ignoreCase ? 'i' : '');
    } catch (error) {
      throw new SivtrError(`invalid regex "${filter.regex}": ${(error as Error).message}`, 'use JavaScript regular expression syntax');
    }
    const keep = plainLines.map((l) => re.test(l));
    shownLines = shownLines.filter((_, i) => keep[i]);
    plainLines = plainLines.filter((_, i) => keep[i]);
  }
  if (filter.lines !== undefined) {
    const indices = pickIndices(parseLineSpec(filter.lines), shownLines.length);
    shownLines = indices.map((i) => shownLines[i]!);
  }
  return shownLines.join('\n');
}
