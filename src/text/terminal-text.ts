// The one terminal text model: raw terminal text in, what a terminal would display out.
// It is a line-level model (no screen size, no wrapping): carriage returns, backspaces,
// erase-in-line and horizontal cursor moves are applied per line so a progress bar leaves its
// final frame; SGR colour is kept per cell so the ANSI variant shows the same text with colours.
// It is streaming: `write` may be called with any chunking and gives the same result.
// Columns are display columns: a CJK character or an emoji takes two, a combining mark none.
import { charInfo, clusterWidth, graphemes, infoWidth, JOINS } from './display-width.js';

export type RenderedText = { plain: string; ansi: string };

/** Optional behaviour for long-running recordings; the defaults keep the plain line model. */
export type TerminalTextOptions = {
  /** Keep at most this many characters of finished lines from the start… */
  headChars?: number;
  /** …and this many from the end, with one `[… N chars omitted …]` line between them. */
  tailChars?: number;
  /** `CSI 2 J` / `CSI 3 J` (what `clear` prints) empties everything written so far. */
  eraseDisplayClears?: boolean;
};

/**
 * One line, in columns. Most output lines are only ever appended to, so a line starts as runs of
 * text (one style each) and becomes cells (parallel arrays, no object per column) only when
 * something edits it in place — a carriage-return overwrite, an erase, a cursor move back. Long
 * outputs stay cheap.
 *
 * A cell is one column. A cluster two columns wide (CJK, most emoji) sits in its first cell and
 * leaves '' in the next, so plain text is the cells joined. Zero-width clusters (combining marks,
 * joiners, variation selectors) belong to the cluster left of the cursor, as on a terminal.
 */
const NO_CELLS: string[] = [];

class Line {
  private runs: { text: string; style: string }[] | null = [];
  private runCells = 0;
  private runChars = 0;
  /** Runs form: the last cluster (what a following mark extends) and the column it starts at. */
  private tail = '';
  private tailStart = 0;
  // Cell form only (allocated by toCells): most lines never need them.
  private ch: string[] = NO_CELLS;
  private st: string[] = NO_CELLS;
  /** Some cluster is wider than one column: edits must mind the '' continuation cells. */
  private wide = false;
  /** Some cell carries a style: the ANSI rendering needs the slow path. */
  private styled = false;
  /**
   * Raw form: a whole line of printable ASCII and SGR sequences, kept as it came (with the style in
   * force at its start) until something needs its runs. Past the head most lines are dropped
   * unseen, so they never are split into runs.
   */
  private raw: string | null = null;
  private rawStyle = '';

  get length(): number {
    return this.runs ? this.runCells : this.ch.length;
  }

  /** Nothing written yet. */
  get blankLine(): boolean {
    return this.runs !== null && this.runCells === 0 && this.raw === null;
  }

  /** Becomes the raw line `text` (see `raw`) of `cells` printable characters, starting in `style`. */
  setRaw(text: string, style: string, cells: number): void {
    this.raw = text;
    this.rawStyle = style;
    this.runCells = cells;
    this.runChars = cells;
  }

  private open(): void {
    const text = this.raw;
    if (text === null) return;
    this.raw = null;
    this.runCells = 0;
    this.runChars = 0;
    let style = this.rawStyle;
    let col = 0;
    let i = 0;
    for (;;) {
      const esc = text.indexOf('\x1b', i);
      const stop = esc < 0 ? text.length : esc;
      if (stop > i) col = this.writeSimple(col, text.slice(i, stop), style);
      if (esc < 0) return;
      const final = text.indexOf('m', esc + 2);
      style = nextStyle(style, text.slice(esc + 2, final));
      i = final + 1;
    }
  }

  /** Printable text (no controls) drawn from column `col`; returns the column after it. */
  write(col: number, text: string, style: string): number {
    this.open();
    const alone = this.writeAlone(col, text, style);
    if (alone >= 0) return alone;
    // ASCII never joins the cluster before it; only the non-ASCII stretches are segmented.
    let i = 0;
    while (i < text.length) {
      const simple = text.charCodeAt(i) < 0x80;
      const stop = simple ? NOT_SIMPLE : NOT_WIDE;
      stop.lastIndex = i;
      const j = stop.exec(text)?.index ?? text.length;
      const part = i === 0 && j === text.length ? text : text.slice(i, j);
      col = simple ? this.writeSimple(col, part, style) : this.writeClusters(col, part, style);
      i = j;
    }
    return col;
  }

  /**
   * Text in which no character can join a neighbour (most CJK, Cyrillic, Greek… output, lone emoji)
   * is one cluster per code point: no segmenter, which costs microseconds a call. -1 when the text
   * needs the segmenter (or holds a zero-width character).
   */
  private writeAlone(col: number, text: string, style: string): number {
    const runs = this.runs !== null && col >= this.runCells;
    const prev = runs
      ? col > this.runCells ? ' ' : col > 0 ? this.tail : ''
      : col === 0 ? '' : col > this.ch.length ? ' ' : this.ch[this.headOf(col - 1)]!;
    for (let k = 0; k < prev.length; k += unitsAt(prev, k)) if (charInfo(prev, k) & JOINS) return -1;
    let width = 0;
    let last = 0;
    let lastLength = 1;
    for (let k = 0; k < text.length; k += lastLength) {
      const info = charInfo(text, k);
      last = infoWidth(info);
      if (info & JOINS || last === 0) return -1;
      lastLength = unitsAt(text, k);
      width += last;
    }
    if (style !== '') this.styled = true;
    if (runs) {
      this.pad(col);
      this.appendRun(text, style, width);
      this.tail = text.slice(text.length - lastLength);
      this.tailStart = col + width - last;
      return col + width;
    }
    this.toCells();
    while (this.ch.length < col) this.pushBlank();
    for (let k = 0; k < text.length; k += lastLength) {
      const info = charInfo(text, k);
      lastLength = unitsAt(text, k);
      col += this.place(col, lastLength === 1 ? text[k]! : text.slice(k, k + 2), infoWidth(info), style);
    }
    return col;
  }

  /** One column per character. */
  writeSimple(col: number, text: string, style: string): number {
    this.open();
    if (style !== '') this.styled = true;
    if (this.runs && col >= this.runCells) {
      this.pad(col);
      this.appendRun(text, style, text.length);
      this.tail = text[text.length - 1]!;
      this.tailStart = col + text.length - 1;
      return col + text.length;
    }
    this.toCells();
    if (!this.wide) {
      while (this.ch.length < col) this.pushBlank();
      for (let k = 0; k < text.length; k++) {
        this.ch[col + k] = text[k]!;
        this.st[col + k] = style;
      }
      return col + text.length;
    }
    for (let k = 0; k < text.length; k++) this.place(col + k, text[k]!, 1, style);
    return col + text.length;
  }

  /** Non-ASCII text: grapheme clusters of display width 0, 1 or 2. */
  private writeClusters(col: number, text: string, style: string): number {
    const alone = this.writeAlone(col, text, style);
    if (alone >= 0) return alone;
    if (style !== '') this.styled = true;
    const runs = this.runs !== null && col >= this.runCells;
    if (runs) this.pad(col);
    else {
      this.toCells();
      while (this.ch.length < col) this.pushBlank();
    }
    // The cluster left of the cursor: the text may extend it (a combining mark, a ZWJ sequence split
    // across writes), which the segmenter decides with that cluster in front of the new text.
    const prevStart = runs ? (col > 0 ? this.tailStart : -1) : col > 0 ? this.headOf(col - 1) : -1;
    const prev = prevStart < 0 ? '' : runs ? this.tail : this.ch[prevStart]!;
    // Combining marks, variation selectors and joiners always extend the cluster before them.
    const extension = prev === '' ? null : extendsAt(text);
    if (extension) {
      const merged = prev + extension[0];
      const width = clusterWidth(merged);
      if (runs) {
        this.appendRun(extension[0], style, width - (col - prevStart));
        this.tail = merged;
        col = prevStart + width;
      } else {
        col = prevStart + this.place(prevStart, merged, width, this.st[prevStart]!);
      }
      return extension[0].length === text.length ? col : this.writeClusters(col, text.slice(extension[0].length), style);
    }
    const clusters = graphemes(prev + text);
    let k = 0;
    if (prev !== '') {
      let merged = '';
      let width = 0;
      while (merged.length < prev.length) {
        const c = clusters[k++]!;
        merged += c;
        width += clusterWidth(c);
      }
      if (merged.length > prev.length) {
        const extension = merged.slice(prev.length);
        if (runs) {
          this.appendRun(extension, style, width - (col - prevStart));
          this.tail = merged;
          col = prevStart + width;
        } else {
          col = prevStart + this.place(prevStart, merged, width, this.st[prevStart]!);
        }
      }
    }
    for (; k < clusters.length; k++) {
      const c = clusters[k]!;
      const width = clusterWidth(c);
      if (width === 0) {
        // Nothing to its left (start of line): a terminal draws nothing, so nothing is kept.
        if (col === 0) continue;
        if (runs) {
          this.appendRun(c, style, 0);
          this.tail += c;
        } else {
          const head = this.headOf(col - 1);
          this.ch[head] += c;
        }
        continue;
      }
      if (runs) {
        this.appendRun(c, style, width);
        this.tail = c;
        this.tailStart = col;
        col += width;
      } else {
        col += this.place(col, c, width, style);
      }
    }
    return col;
  }

  private appendRun(text: string, style: string, cells: number): void {
    const runs = this.runs!;
    const last = runs[runs.length - 1];
    if (last && last.style === style) last.text += text;
    else runs.push({ text, style });
    this.runCells += cells;
    this.runChars += text.length;
  }

  /** Runs form: blanks up to column `col` (a cursor moved past the end). */
  private pad(col: number): void {
    if (col <= this.runCells) return;
    const start = this.runCells;
    this.appendRun(' '.repeat(col - start), '', col - start);
    this.tail = ' ';
    this.tailStart = col - 1;
  }

  private pushBlank(): void {
    this.ch.push(' ');
    this.st.push('');
  }

  /** The first cell of the cluster covering column `i`. */
  private headOf(i: number): number {
    while (i > 0 && this.ch[i] === '') i--;
    return i;
  }

  /** Cells form: one cluster at column `i`; a wide cluster it cuts in half is blanked. Returns `width`. */
  private place(i: number, text: string, width: number, style: string): number {
    const end = i + width;
    if (this.wide) this.unsplit(i, end);
    while (this.ch.length < end) this.pushBlank();
    this.ch[i] = text;
    this.st[i] = style;
    for (let k = i + 1; k < end; k++) {
      this.ch[k] = '';
      this.st[k] = style;
    }
    if (width > 1) this.wide = true;
    return width;
  }

  /** Columns [from, to) are about to change: blank the parts of wide clusters that stick out. */
  private unsplit(from: number, to: number): void {
    const n = this.ch.length;
    if (from < n && this.ch[from] === '') {
      for (let k = this.headOf(from); k < from; k++) this.blankCell(k);
    }
    for (let k = to; k < n && this.ch[k] === ''; k++) this.blankCell(k);
  }

  private blankCell(k: number): void {
    this.ch[k] = ' ';
    this.st[k] = '';
  }

  private toCells(): void {
    const runs = this.runs;
    if (!runs) return;
    this.runs = null;
    this.ch = [];
    this.st = [];
    // Replayed through the cell writer, so clusters and columns come out as they were appended.
    let col = 0;
    for (const run of runs) col = this.write(col, run.text, run.style);
  }

  truncate(n: number): void {
    this.open();
    if (n === 0) {
      this.raw = null;
      this.runs = [];
      this.runCells = 0;
      this.runChars = 0;
      this.tail = '';
      this.tailStart = 0;
      this.ch = NO_CELLS;
      this.st = NO_CELLS;
      this.wide = false;
      this.styled = false;
      return;
    }
    if (n >= this.length) return;
    this.toCells();
    if (this.wide) this.unsplit(n, n);
    this.ch.length = n;
    this.st.length = n;
  }

  /** Columns [from, to) become blank (erase), within the line. */
  blank(from: number, to: number): void {
    this.open();
    to = Math.min(to, this.length);
    if (from >= to) return;
    this.toCells();
    if (this.wide) this.unsplit(from, to);
    for (let k = from; k < to; k++) this.blankCell(k);
  }

  /** Deletes `n` columns at `i`; the rest of the line moves left. */
  splice(i: number, n: number): void {
    this.open();
    if (i >= this.length) return;
    this.toCells();
    if (this.wide) this.unsplit(i, Math.min(i + n, this.ch.length));
    this.ch.splice(i, n);
    this.st.splice(i, n);
  }

  /** The length of the plain rendering, without rendering. */
  plainLength(): number {
    if (this.runs) return this.runChars;
    let n = 0;
    for (const c of this.ch) n += c.length;
    return n;
  }

  /** [plain, ansi]: the ANSI form re-serialises SGR only, reset at each change and at the end. */
  render(): [string, string] {
    this.open();
    let plain: string;
    let pieces: { text: string; style: string }[];
    if (this.runs) {
      plain = this.runs.length === 1 ? this.runs[0]!.text : this.runs.map((r) => r.text).join('');
      if (!this.styled) return [plain, plain];
      pieces = this.runs;
    } else {
      pieces = [];
      plain = this.ch.join('');
      if (!this.styled) return [plain, plain];
      for (let i = 0; i < this.ch.length; i++) pieces.push({ text: this.ch[i]!, style: this.st[i]! });
    }
    const ansi: string[] = [];
    let current = '';
    for (const piece of pieces) {
      if (piece.text === '') continue; // the second column of a wide cluster
      if (piece.style !== current) {
        if (current !== '') ansi.push('\x1b[0m');
        ansi.push(piece.style);
        current = piece.style;
      }
      ansi.push(piece.text);
    }
    if (current !== '') ansi.push('\x1b[0m');
    return [plain, ansi.join('')];
  }
}

/** 2 where `text[i]` starts a surrogate pair, else 1. */
function unitsAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

/**
 * A run of characters that join whatever precedes them (Unicode's extend and ZWJ rule). Made on
 * first use: V8 builds a literal's Unicode sets when the module loads, ~3 M instructions of every
 * start of a command that never draws a combining mark.
 */
let extendsRegex: RegExp | undefined;
const extendsAt = (text: string): RegExpExecArray | null => (extendsRegex ??= /^[\p{Grapheme_Extend}\u200d]+/u).exec(text);



const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  Osc,
  OscEscape,
  String, // DCS / SOS / PM / APC: swallowed up to ST
  StringEscape,
}

/** Where a run of printable ASCII (and tabs, one column each) ends. */
const NOT_SIMPLE = /[^\t\x20-\x7e]/g;
/** Printable ASCII (tabs count one column) and whole SGR sequences: drawn without the state machine. */
const SIMPLE_TEXT = /(?:[\t\x20-\x7e]+|\x1b\[[0-9;]*m)*/y;
/** Where printable text ends: at a C0 or C1 control (tab excepted). */
const PRINTABLE_END = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
/** Where a run of non-ASCII text ends: at ASCII or a C1 control. */
const NOT_WIDE = /[\x00-\x9f]/g;

/** How far `CSI n A` may move up: enough for multi-line progress displays, bounded memory. */
const MAX_CURSOR_UP = 64;
/** SGR sequences kept per style before the oldest are dropped (keeps styles bounded). */
const MAX_STYLE_PARTS = 12;
const MAX_CSI_LENGTH = 64;

export class TerminalText {
  private donePlain: string[] = [];
  private doneAnsi: string[] = [];
  private headUsed = 0;
  /** Kept unrendered: most tail lines are dropped before anyone looks at them. */
  private tailLines: Line[] = [];
  private tailStart = 0;
  private tailUsed = 0;
  /** Characters (plain, newlines included) dropped between head and tail. */
  omittedChars = 0;
  /** Lines still reachable by the cursor (cursor-up); the oldest are committed when it grows. */
  private live: Line[] = [new Line()];
  /** A line went to the tail: from here on most lines are dropped unseen. */
  private pastHead = false;
  /** Lines before this index in `live` are committed (dropped in batches). */
  private liveStart = 0;
  private row = 0;
  private col = 0;
  private style = '';
  private state = State.Ground;
  private seq = '';
  private highSurrogate = '';

  constructor(private readonly options: TerminalTextOptions = {}) {}

  // The next ESC in the text being written, found once per write rather than once per line: an
  // unbounded indexOf per line of a text holding no ESC scans to its end each time (quadratic).
  private writeSeq = 0;
  private escSeq = -1;
  private escAt = -1;

  /** Index of the first ESC at or after `from` in this write's text, or -1. */
  private nextEsc(text: string, from: number): number {
    if (this.escSeq !== this.writeSeq || (this.escAt >= 0 && this.escAt < from)) {
      this.escSeq = this.writeSeq;
      this.escAt = text.indexOf('\x1b', from);
    }
    return this.escAt;
  }

  write(text: string): void {
    this.writeSeq++;
    // A surrogate pair cut between writes is joined before it is drawn.
    if (this.highSurrogate !== '') {
      text = this.highSurrogate + text;
      this.highSurrogate = '';
    }
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.highSurrogate = text[text.length - 1]!;
      text = text.slice(0, -1);
    }
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.state === State.Ground) {
        // Past the head, a whole line of printable ASCII and colour is kept raw (see Line.raw).
        if (this.pastHead && this.col === 0) {
          const end = this.rawLine(text, i);
          if (end > 0) {
            i = end;
            continue;
          }
        }
        // Fast path: printable ASCII and colour changes need no state machine and no width lookup.
        SIMPLE_TEXT.lastIndex = i;
        SIMPLE_TEXT.test(text); // the regex engine scans faster than a JS loop
        const j = SIMPLE_TEXT.lastIndex;
        if (j > i) {
          this.simpleText(text, i, j);
          i = j;
          if (i === n) break;
        }
        const code = text.charCodeAt(i);
        if (code === 0x0a) {
          this.newline();
          i++;
          continue;
        }
        if (code === 0x0d) {
          this.col = 0;
          i++;
          continue;
        }
        if (code >= 0xa0) {
          PRINTABLE_END.lastIndex = i;
          const k = PRINTABLE_END.exec(text)?.index ?? n;
          this.col = this.live[this.liveStart + this.row]!.write(this.col, text.slice(i, k), this.style);
          i = k;
          continue;
        }
      }
      const cp = text.codePointAt(i)!;
      const ch = cp > 0xffff ? text.slice(i, i + 2) : text[i]!;
      i += ch.length;
      this.feed(ch);
    }
  }

  /**
   * A whole line from text[i] (through its LF) of printable ASCII and SGR sequences, stored raw on
   * the blank current line. Returns the index after the LF, or 0 when the text there is no such line.
   */
  private rawLine(text: string, i: number): number {
    const line = this.live[this.liveStart + this.row]!;
    if (!line.blankLine) return 0;
    const lf = text.indexOf('\n', i);
    if (lf <= i) return 0;
    const end = text.charCodeAt(lf - 1) === 0x0d ? lf - 1 : lf;
    SIMPLE_TEXT.lastIndex = i;
    SIMPLE_TEXT.test(text);
    if (SIMPLE_TEXT.lastIndex !== end) return 0;
    const style = this.style;
    let escapes = 0;
    for (let k = this.nextEsc(text, i); k >= 0 && k < end; k = this.nextEsc(text, k)) {
      const final = text.indexOf('m', k + 2);
      this.style = nextStyle(this.style, text.slice(k + 2, final));
      escapes += final + 1 - k;
      k = final + 1;
    }
    const cells = end - i - escapes;
    if (cells > 0) line.setRaw(text.slice(i, end), style, cells);
    this.newline();
    return lf + 1;
  }

  /** text[i, end): printable ASCII and complete SGR sequences only. */
  private simpleText(text: string, i: number, end: number): void {
    const line = this.live[this.liveStart + this.row]!;
    let col = this.col;
    while (i < end) {
      const esc = this.nextEsc(text, i);
      const stop = esc < 0 || esc >= end ? end : esc;
      if (stop > i) col = line.writeSimple(col, i === 0 && stop === text.length ? text : text.slice(i, stop), this.style);
      if (stop === end) break;
      const final = text.indexOf('m', stop + 2);
      this.sgr(text.slice(stop + 2, final));
      i = final + 1;
    }
    this.col = col;
  }

  /** Everything written so far, rendered; trailing newlines trimmed. */
  snapshot(): RenderedText {
    const plain = [...this.donePlain];
    const ansi = [...this.doneAnsi];
    if (this.omittedChars > 0) {
      const note = `[… ${this.omittedChars} chars omitted …]`;
      plain.push(note);
      ansi.push(note);
    }
    for (let i = this.tailStart; i < this.tailLines.length; i++) {
      const [p, a] = this.tailLines[i]!.render();
      plain.push(p);
      ansi.push(a);
    }
    for (let i = this.liveStart; i < this.live.length; i++) {
      const line = this.live[i]!;
      const [p, a] = renderLine(line);
      plain.push(p);
      ansi.push(a);
    }
    return { plain: trimTrailingNewlines(plain.join('\n')), ansi: trimTrailingNewlines(ansi.join('\n')) };
  }

  private feed(ch: string): void {
    switch (this.state) {
      case State.Ground:
        return this.ground(ch);
      case State.Escape:
        return this.escape(ch);
      case State.EscapeIntermediate:
        // ESC ( B and friends: one final byte after the intermediates.
        if (ch >= '0' && ch <= '~') this.state = State.Ground;
        return;
      case State.Csi:
        if (ch >= '@' && ch <= '~') {
          this.state = State.Ground;
          this.csi(this.seq, ch);
          this.seq = '';
        } else if (this.seq.length < MAX_CSI_LENGTH) {
          this.seq += ch;
        }
        return;
      case State.Osc:
        if (ch === '\x07') this.state = State.Ground;
        else if (ch === '\x1b') this.state = State.OscEscape;
        return;
      case State.OscEscape:
        this.state = ch === '\\' ? State.Ground : State.Osc;
        return;
      case State.String:
        if (ch === '\x1b') this.state = State.StringEscape;
        return;
      case State.StringEscape:
        this.state = ch === '\\' ? State.Ground : State.String;
        return;
    }
  }

  private ground(ch: string): void {
    switch (ch) {
      case '\x1b':
        this.state = State.Escape;
        return;
      case '\n':
        this.newline();
        return;
      case '\r':
        this.col = 0;
        return;
      case '\b':
        if (this.col > 0) this.col--;
        return;
      case '\x9b': // 8-bit CSI
        this.state = State.Csi;
        this.seq = '';
        return;
    }
    // Other C0 and C1 controls (BEL, SO, SI…) display nothing.
  }

  private escape(ch: string): void {
    switch (ch) {
      case '[':
        this.state = State.Csi;
        this.seq = '';
        return;
      case ']':
        this.state = State.Osc;
        return;
      case 'P':
      case 'X':
      case '^':
      case '_':
        this.state = State.String;
        return;
    }
    if (ch >= ' ' && ch <= '/') {
      this.state = State.EscapeIntermediate;
      return;
    }
    this.state = State.Ground; // ESC 7, ESC 8, ESC =, ESC M…: no effect on the text
  }

  private csi(params: string, final: string): void {
    const privateMarker = params.length > 0 && '<=>?'.includes(params[0]!);
    if (privateMarker) return; // modes (bracketed paste, cursor visibility…) change no text
    if (final === 'm') return this.sgr(params);
    const nums = params.split(';').map((p) => (p === '' ? NaN : Number.parseInt(p, 10)));
    const n = Number.isFinite(nums[0]) && nums[0]! > 0 ? nums[0]! : 1;
    switch (final) {
      case 'm':
        return this.sgr(params);
      case 'K':
        return this.eraseInLine(Number.isFinite(nums[0]) ? nums[0]! : 0);
      case 'D':
        this.col = Math.max(0, this.col - n);
        return;
      case 'C':
        this.col += n;
        return;
      case 'G':
        this.col = n - 1;
        return;
      case 'A':
        this.row = Math.max(0, this.row - Math.min(n, MAX_CURSOR_UP));
        return;
      case 'B':
        for (let i = 0; i < n; i++) this.newline(false);
        return;
      case 'E':
        for (let i = 0; i < n; i++) this.newline();
        return;
      case 'F':
        this.row = Math.max(0, this.row - Math.min(n, MAX_CURSOR_UP));
        this.col = 0;
        return;
      case 'J': {
        const mode = Number.isFinite(nums[0]) ? nums[0]! : 0;
        if ((mode === 2 || mode === 3) && this.options.eraseDisplayClears) return this.clearAll();
        if (mode === 0) {
          this.eraseInLine(0);
          this.live.length = this.liveStart + this.row + 1;
        }
        return;
      }
      case 'P': {
        this.live[this.liveStart + this.row]!.splice(this.col, n);
        return;
      }
      case 'X': {
        this.live[this.liveStart + this.row]!.blank(this.col, this.col + n);
        return;
      }
    }
  }

  private sgr(params: string): void {
    this.style = nextStyle(this.style, params);
  }

  private eraseInLine(mode: number): void {
    const line = this.live[this.liveStart + this.row]!;
    if (mode === 0) line.truncate(this.col);
    else if (mode === 1) line.blank(0, this.col + 1);
    else line.truncate(0);
  }

  private newline(carriageReturn = true): void {
    this.row++;
    if (carriageReturn) this.col = 0;
    if (this.liveStart + this.row >= this.live.length) this.live.push(new Line());
    // Lines the cursor can no longer reach are final: render them once and drop the cells.
    while (this.live.length - this.liveStart > MAX_CURSOR_UP + 1 && this.row > 0) {
      this.commit(this.live[this.liveStart]!);
      this.liveStart++;
      this.row--;
    }
    // Dropped from the front in batches: shifting the array at every line costs a copy of it.
    if (this.liveStart >= 256) {
      this.live = this.live.slice(this.liveStart);
      this.liveStart = 0;
    }
  }

  private commit(line: Line): void {
    const { headChars, tailChars } = this.options;
    if (headChars === undefined || tailChars === undefined) {
      const [plain, ansi] = line.render();
      this.donePlain.push(plain);
      this.doneAnsi.push(ansi);
      return;
    }
    const size = line.plainLength() + 1;
    if (this.omittedChars === 0 && this.tailStart === this.tailLines.length && this.headUsed + size <= headChars) {
      const [plain, ansi] = line.render();
      this.donePlain.push(plain);
      this.doneAnsi.push(ansi);
      this.headUsed += size;
      return;
    }
    // Whole lines only: a cut never splits a line (a later redactor must see whole secrets).
    this.pastHead = true;
    this.tailLines.push(line);
    this.tailUsed += size;
    while (this.tailUsed > tailChars && this.tailStart < this.tailLines.length) {
      const dropped = this.tailLines[this.tailStart]!.plainLength() + 1;
      this.tailStart++;
      this.tailUsed -= dropped;
      this.omittedChars += dropped;
    }
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tailLines.length) {
      this.tailLines = this.tailLines.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  private clearAll(): void {
    this.donePlain = [];
    this.doneAnsi = [];
    this.tailLines = [];
    this.tailStart = 0;
    this.tailUsed = 0;
    this.headUsed = 0;
    this.omittedChars = 0;
    this.pastHead = false;
    this.live = [new Line()];
    this.liveStart = 0;
    this.row = 0;
    this.col = 0;
  }
}

/** style → SGR parameters → resulting style: coloured output repeats the same few transitions. */
const styleCache = new Map<string, Map<string, string>>();

/** The style after `ESC [ params m` is applied to `from` (a style is the SGR sequences in force). */
function nextStyle(from: string, params: string): string {
  let byParams = styleCache.get(from);
  const cached = byParams?.get(params);
  if (cached !== undefined) return cached;
  const style = applySgr(from, params);
  if (!byParams) {
    if (styleCache.size >= 256) styleCache.clear();
    byParams = new Map();
    styleCache.set(from, byParams);
  }
  if (byParams.size < 256) byParams.set(params, style);
  return style;
}

function applySgr(from: string, params: string): string {
  const parts = params.split(';');
  const resetAt = parts.lastIndexOf('0');
  if (params === '' || parts.every((p) => p === '' || p === '0')) return '';
  if (resetAt >= 0 && !isExtendedColourArgument(parts, resetAt)) {
    const rest = parts.slice(resetAt + 1);
    return rest.length > 0 ? `\x1b[${rest.join(';')}m` : '';
  }
  const style = from + `\x1b[${params}m`;
  const pieces = style.split('\x1b[').filter(Boolean);
  return pieces.length > MAX_STYLE_PARTS ? pieces.slice(-MAX_STYLE_PARTS).map((p) => '\x1b[' + p).join('') : style;
}

/** `38;5;0` and `38;2;0;0;0` carry zeros that are colour values, not resets. */
function isExtendedColourArgument(parts: string[], index: number): boolean {
  for (let i = Math.max(0, index - 4); i < index; i++) {
    if (parts[i] === '38' || parts[i] === '48' || parts[i] === '58') {
      const kind = parts[i + 1];
      const span = kind === '5' ? 2 : kind === '2' ? 4 : 0;
      if (index <= i + span) return true;
    }
  }
  return false;
}

function renderLine(line: Line): [string, string] {
  return line.render();
}


export function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end--;
  return text.slice(0, end);
}

/** Raw terminal text → the (plain, ansi) pair a terminal would have displayed. */
export function renderTerminalText(raw: string, options?: TerminalTextOptions): RenderedText {
  const model = new TerminalText(options);
  model.write(raw);
  return model.snapshot();
}
