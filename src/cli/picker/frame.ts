// The picker's screen as lines of text, each exactly as wide as the terminal: the query line, the
// list, the preview (under the list, or beside it on a wide terminal) and the keys. painter.ts
// puts these lines on the terminal: the main bundle's first frame (launch.ts), before Ink and
// React have loaded, and every frame after it (app.ts).
import { charInfo } from '../../text/display-width.js';
import { lineCount, previewLines } from './sanitize.js';
import type { AspectName, PickEntry, UiMode } from './types.js';

/** Terminals at least this wide show the list and the preview side by side. */
const WIDE = 100;

export const ASPECT_LABEL: Record<AspectName, string> = {
  block: 'block', input: 'input', output: 'output', command: 'cmd', turn: 'turn', user: 'user', reply: 'reply', tool: 'tool output', all: 'session',
};

type Style = (s: string) => string;
export type Styles = { inverse: Style; dim: Style; red: Style; cyan: Style; bold: Style };

export function makeStyles(color: boolean): Styles {
  const sgr = (on: number, off: number): Style => (color ? (s) => `\x1b[${on}m${s}\x1b[${off}m` : (s) => s);
  return { inverse: sgr(7, 27), dim: sgr(2, 22), red: sgr(31, 39), cyan: sgr(36, 39), bold: sgr(1, 22) };
}

export type Layout = { cols: number; rows: number; wide: boolean; listRows: number; listWidth: number; previewRows: number; previewWidth: number };

/**
 * `screenRows` less one: when Ink drew the frames, one as tall as the terminal made it clear the
 * screen with ESC[3J, which also erased the scrollback of the screen the picker was opened from.
 * The painter has no such limit; the layout is kept as people know it.
 */
export function layoutFor(cols: number, screenRows: number): Layout {
  const rows = Math.max(3, screenRows - 1);
  const body = Math.max(2, rows - 2); // the query line above, the keys line below
  if (cols >= WIDE) {
    const listWidth = Math.floor(cols * 0.45);
    return { cols, rows, wide: true, listRows: body, listWidth, previewRows: body - 1, previewWidth: cols - listWidth - 1 };
  }
  const listRows = Math.max(1, Math.floor((body - 1) / 2));
  return { cols, rows, wide: false, listRows, listWidth: cols, previewRows: Math.max(1, body - 1 - listRows), previewWidth: cols };
}

/**
 * Columns of one character. The ranges every frame is full of (ASCII, Latin, punctuation, arrows,
 * box drawing) are answered here; the text model's tables (which load string-width and its
 * grapheme segmenter, ~70 ms on this machine, on first use) only for the rest.
 */
function charWidth(ch: string): number {
  const c = ch.codePointAt(0)!;
  if (c >= 0x20 && c < 0x7f) return 1;
  if (c < 0x20 || c === 0x7f) return 0;
  if (c < 0x300 || (c >= 0x370 && c < 0x1100)) return 1;
  if (c >= 0x2000 && c <= 0x206f) return (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || c >= 0x2060 ? 0 : 1;
  if ((c >= 0x2190 && c <= 0x21ff) || (c >= 0x2500 && c <= 0x257f)) return 1;
  return charInfo(ch, 0) & 0x3f;
}

const SGR = /\x1b\[[0-9;:]*m/y;

/** Columns of a text that may hold SGR colours. */
export function columns(text: string): number {
  let used = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(text);
      i += m ? m[0].length : 1;
      continue;
    }
    if (c >= 0x20 && c < 0x7f) {
      used++;
      i++;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    used += charWidth(ch);
    i += ch.length;
  }
  return used;
}

/** Plain text (no escape sequences) in exactly `width` columns: cut with an ellipsis, or padded. */
export function fit(text: string, width: number): string {
  return fitAnsi(text, width);
}

/** Text that may hold SGR colours, in exactly `width` columns; a colour left open is closed. */
export function fitAnsi(text: string, width: number): string {
  if (width <= 0) return '';
  const full = columns(text);
  if (full <= width) return text + (text.includes('\x1b[') ? '\x1b[0m' : '') + ' '.repeat(width - full);
  const limit = width - 1;
  let out = '';
  let used = 0;
  let styled = false;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      SGR.lastIndex = i;
      const m = SGR.exec(text);
      if (m) {
        out += m[0];
        styled = true;
        i += m[0].length;
        continue;
      }
      i++;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    const w = charWidth(ch);
    if (used + w > limit) break;
    out += ch;
    used += w;
    i += ch.length;
  }
  out += '…';
  used++;
  return (styled ? out + '\x1b[0m' : out) + ' '.repeat(Math.max(0, width - used));
}



/** What Enter does, for the keys line. */
export function enterVerb(mode: UiMode, print: boolean | undefined): string {
  return mode === 'show' ? 'show' : mode === 'diff' ? 'diff' : print ? 'print' : 'copy';
}

export type Aspects = { record: AspectName; turn: AspectName };

/** What Enter takes from an entry: the chosen aspect of its kind, if it has that one. */
export function aspectFor(e: PickEntry, aspects: Aspects): AspectName {
  const wanted = e.kind === 'record' ? aspects.record : e.kind === 'turn' ? aspects.turn : e.aspects[0]!;
  return e.aspects.includes(wanted) ? wanted : e.aspects[0]!;
}

/** One row of the list: cursor, mark, source, title, and the time (or exit status) at the right. */
function rowText(entry: PickEntry, selected: boolean, mark: number, width: number, st: Styles): string {
  const cursor = selected ? '›' : ' ';
  const marked = mark > 0 ? String(mark) : ' ';
  const tag = entry.tag.length > 8 ? entry.tag.slice(0, 8) : entry.tag.padEnd(entry.tag === '$' ? 1 : 8);
  const kind = entry.kind === 'session' ? 'session · ' : '';
  const left = `${cursor}${marked} ${tag} ${kind}${entry.title}`;
  const meta = entry.meta;
  const metaWidth = meta === '' ? 0 : Math.min(columns(meta), Math.max(0, width - 12));
  const paint = selected ? st.inverse : (s: string) => s;
  if (metaWidth === 0) return paint(fit(left, width));
  const metaText = fit(meta, metaWidth);
  return `${paint(fit(left, width - metaWidth - 1))} ${entry.failed ? st.red(metaText) : st.dim(metaText)}`;
}

type Preview = { entry: PickEntry | undefined; aspect: AspectName | undefined; colour: boolean; text: string; lines: number };

/**
 * The preview's text and its line count, kept for what was shown last: a record's output can be
 * megabytes, and building its block and counting its lines again on every keystroke (~30 ms for
 * 20 MB on this machine) cost more than the rest of the frame. An entry read on demand (a
 * session) may change its text once read, so it is asked again; the count is still kept while
 * the text it answers is the same.
 */
let lastPreview: Preview | undefined;

function previewOf(entry: PickEntry | undefined, aspect: AspectName | undefined, colour: boolean, read: () => string): Preview {
  const last = lastPreview;
  if (last && entry !== undefined && entry.load === undefined && last.entry === entry && last.aspect === aspect && last.colour === colour) return last;
  const text = read();
  lastPreview = { entry, aspect, colour, text, lines: last && last.text === text ? last.lines : lineCount(text) };
  return lastPreview;
}

export type FrameState = {
  all: readonly PickEntry[];
  shown: readonly PickEntry[];
  query: string;
  cursor: number;
  top: number;
  marks: readonly string[];
  aspects: Aspects;
  scroll: number;
  /** The diff being shown instead of the selected entry. */
  diff?: { title: string; text: string };
  note: string;
  loadingMore: boolean;
  mode: UiMode;
  print?: boolean;
  color: boolean;
};

/** The screen's lines, and the preview's scroll as far as its text allows. */
export function frame(s: FrameState, cols: number, screenRows: number): { lines: string[]; scroll: number; layout: Layout } {
  const layout = layoutFor(cols, screenRows);
  const st = makeStyles(s.color);

  const count = `${s.shown.length}/${s.all.length}${s.loadingMore ? ' …' : ''}`;
  // The query keeps its end in view: what was typed last is what one looks at.
  const room = Math.max(1, cols - columns(count) - 4);
  const typed = columns(s.query) > room ? '…' + [...s.query].slice(-(room - 1)).join('') : s.query;
  const gap = Math.max(1, cols - 3 - columns(typed) - columns(count));
  const header = fitAnsi(`${st.bold('>')} ${typed}${st.inverse(' ')}${' '.repeat(gap)}${st.dim(count)}`, cols);

  const list: string[] = [];
  const rowsShown = s.shown.slice(s.top, s.top + layout.listRows);
  if (rowsShown.length === 0) {
    const why = s.all.length === 0 ? (s.loadingMore ? '  reading…' : '  nothing recorded yet') : '  no match';
    list.push(fitAnsi(st.dim(why), layout.listWidth));
  }
  rowsShown.forEach((entry, i) => list.push(rowText(entry, s.top + i === s.cursor, s.marks.indexOf(entry.key) + 1, layout.listWidth, st)));
  // Blank rows keep the preview where it is however few entries match.
  while (list.length < layout.listRows) list.push(' '.repeat(layout.listWidth));

  let title = '';
  let shown: Preview = { entry: undefined, aspect: undefined, colour: s.color, text: '', lines: 1 };
  let keepColour = s.color;
  const selected = s.shown[s.cursor];
  if (s.diff) {
    const diff = s.diff.text;
    title = s.diff.title;
    shown = previewOf(undefined, undefined, s.color, () => diff);
  } else if (selected) {
    const aspect = aspectFor(selected, s.aspects);
    const choices = selected.aspects.length > 1 ? selected.aspects.map((a) => (a === aspect ? `[${ASPECT_LABEL[a]}]` : ASPECT_LABEL[a])).join(' ') : ASPECT_LABEL[aspect];
    title = `${selected.ref} · ${choices}`;
    shown = previewOf(selected, aspect, s.color, () => selected.text(aspect, s.color));
    keepColour = s.color && selected.kind === 'record';
  }
  const text = shown.text;
  const scroll = Math.min(s.scroll, Math.max(0, shown.lines - layout.previewRows));
  const rule = title === '' ? '' : `── ${title} `;
  const preview = [st.cyan(fit(rule + '─'.repeat(Math.max(0, layout.previewWidth - columns(rule))), layout.previewWidth))];
  for (const l of previewLines(text, keepColour, layout.previewRows, scroll)) preview.push(fitAnsi(l, layout.previewWidth));
  while (preview.length < layout.previewRows + 1) preview.push(' '.repeat(layout.previewWidth));

  const enter = s.diff ? (s.mode === 'copy' && !s.print ? 'copy diff' : 'print diff') : enterVerb(s.mode, s.print);
  const keys = s.note !== '' ? s.note : `Enter ${enter} · Tab what · ^T mark · ^D diff · PgUp/PgDn scroll · Esc ${s.diff ? 'back' : 'quit'}`;
  const footer = s.note !== '' ? st.red(fit(keys, cols)) : st.dim(fit(keys, cols));

  const body = layout.wide ? list.map((l, i) => `${l} ${preview[i] ?? ''}`) : [...list, ...preview];
  return { lines: [header, ...body, footer], scroll, layout };
}
