// Display width of what a terminal draws as one character: a grapheme cluster (a base with its
// combining marks, an emoji ZWJ sequence, a flag) takes 0, 1 or 2 columns. string-width carries the
// Unicode tables (East Asian Width, RGI emoji, default-ignorables) so we do not keep our own.
import { createRequire } from 'node:module';

// Loaded on the first character outside ASCII: building string-width's tables and an
// Intl.Segmenter costs ~30-45 ms here, which every command paid at start even when the text was
// plain ASCII (most output). In the bundle `require` is esbuild's, so string-width stays bundled;
// from the sources (tests) Node's require loads the ES module.
type Measure = (text: string) => number;
let measure: Measure | undefined;
declare const require: NodeJS.Require | undefined;
function stringWidth(text: string): number {
  measure ??= ((typeof require === 'function' ? require('string-width') : createRequire(import.meta.url)('string-width')) as { default: Measure }).default;
  return measure(text);
}

let segmenter: Intl.Segmenter | undefined;

/**
 * Characters that may form one grapheme cluster with a neighbour (Unicode's extend, spacing-mark,
 * prepend, joiner, Hangul jamo, regional-indicator and emoji rules): only text holding one needs the
 * segmenter, which costs microseconds a call. Outside the BMP only a lone pictograph (most emoji)
 * stands alone; flags, skin-tone modifiers and the rest are segmented.
 */
// Made on the first character outside ASCII: V8 builds a regex's Unicode sets when it is made
// (here when the module loads), ~4 M instructions of every start.
let mayJoinRegex: RegExp | undefined;
const mayJoin = (text: string): boolean =>
  (mayJoinRegex ??= /[\p{Grapheme_Extend}\p{Mc}\p{Cf}\u0d4e\u0e33\u0eb3\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\ud800-\udfff]|(?!\p{Extended_Pictographic})[\u{10000}-\u{10ffff}]/u).test(text);

/** Set in a character's info when it may join a neighbour; the low bits are its width. */
export const JOINS = 0x40;
const KNOWN = 0x80;
const WIDTH = 0x3f;

/** Per BMP code unit, looked up once: KNOWN | JOINS? | width. */
const bmp = new Uint8Array(0x10000);
const astral = new Map<string, number>();
const widths = new Map<string, number>();
const MAX_CACHED = 4096;

/** JOINS and width of the character at `text[i]` (a surrogate pair counts as one). */
export function charInfo(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x80) return 1;
  if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
    const pair = text.slice(i, i + 2);
    let info = astral.get(pair);
    if (info === undefined) {
      info = (mayJoin(pair) ? JOINS : 0) | stringWidth(pair);
      if (astral.size >= MAX_CACHED) astral.clear();
      astral.set(pair, info);
    }
    return info;
  }
  let info = bmp[code]!;
  if (info === 0) {
    const ch = String.fromCharCode(code);
    info = KNOWN | (mayJoin(ch) ? JOINS : 0) | stringWidth(ch);
    bmp[code] = info;
  }
  return info & (JOINS | WIDTH);
}

export function infoWidth(info: number): number {
  return info & WIDTH;
}

/** Width of any grapheme cluster; output repeats the same few hundred, so each is measured once. */
export function clusterWidth(cluster: string): number {
  let width = widths.get(cluster);
  if (width === undefined) {
    width = stringWidth(cluster);
    if (widths.size >= MAX_CACHED) widths.clear();
    widths.set(cluster, width);
  }
  return width;
}

const segmented = new Map<string, readonly string[]>();

/** The grapheme clusters of `text`, in order; short texts (an emoji and its neighbour) are remembered. */
export function graphemes(text: string): readonly string[] {
  const short = text.length <= 32;
  const known = short ? segmented.get(text) : undefined;
  if (known) return known;
  const out: string[] = [];
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(text)) out.push(segment);
  if (short) {
    if (segmented.size >= MAX_CACHED) segmented.clear();
    segmented.set(text, out);
  }
  return out;
}
