// The one terminal text model: raw terminal text in, what a terminal would display out.
// It is a line-level model (no screen size, no wrapping): carriage returns, backspaces,
// erase-in-line and horizontal cursor moves are applied per line so a progress bar leaves its
// final frame; SGR colour is kept per cell so the ANSI variant shows the same text with colours.
// It is streaming: `write` may be called with any chunking and gives the same result.

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
 * One line. Most output lines are only ever appended to, so a line starts as runs of text (one style
 * each) and becomes cells (parallel arrays, no object per character) only when something edits it
 * in place — a carriage-return overwrite, an erase, a cursor move back. Long outputs stay cheap.
 */
const NO_CELLS: string[] = [];

class Line {
  private runs: { text: string; style: string }[] | null = [];
  private runCells = 0;
  private runChars = 0;
  // Cell form only (allocated by toCells): most lines never need them.
  private ch: string[] = NO_CELLS;
  private st: string[] = NO_CELLS;
  /** Some cell carries a style: the ANSI rendering needs the slow path. */
  private styled = false;

  get length(): number {
    return this.runs ? this.runCells : this.ch.length;
  }

  /** Appends text of `cells` cells (code points) at the end of the line. */
  append(text: string, style: string, cells: number): void {
    if (style !== '') this.styled = true;
    if (this.runs) {
      const last = this.runs[this.runs.length - 1];
      if (last && last.style === style) last.text += text;
      else this.runs.push({ text, style });
      this.runCells += cells;
      this.runChars += text.length;
      return;
    }
    for (const c of text) {
      this.ch.push(c);
      this.st.push(style);
    }
  }

  private toCells(): void {
    if (!this.runs) return;
    this.ch = [];
    this.st = [];
    for (const run of this.runs) {
      for (const c of run.text) {
        this.ch.push(c);
        this.st.push(run.style);
      }
    }
    this.runs = null;
  }

  truncate(n: number): void {
    if (n === 0) {
      this.runs = [];
      this.runCells = 0;
      this.runChars = 0;
      this.ch = NO_CELLS;
      this.st = NO_CELLS;
      this.styled = false;
      return;
    }
    if (n >= this.length) return;
    this.toCells();
    this.ch.length = n;
    this.st.length = n;
  }

  set(i: number, ch: string, style: string): void {
    const length = this.length;
    if (this.runs && i >= length) {
      if (i > length) this.append(' '.repeat(i - length), '', i - length);
      this.append(ch, style, 1);
      return;
    }
    this.toCells();
    while (this.ch.length < i) {
      this.ch.push(' ');
      this.st.push('');
    }
    this.ch[i] = ch;
    this.st[i] = style;
    if (style !== '') this.styled = true;
  }

  splice(i: number, n: number): void {
    this.toCells();
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

/** Characters the fast path cannot append as plain text. */
const SPECIAL = /[\x00-\x1f\x7f\x9b\ud800-\udfff]/g;

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
  private row = 0;
  private col = 0;
  private style = '';
  private state = State.Ground;
  private seq = '';

  constructor(private readonly options: TerminalTextOptions = {}) {}

  write(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.state === State.Ground) {
        // Fast path: a run of printable BMP characters needs no state machine.
        SPECIAL.lastIndex = i;
        const j = SPECIAL.exec(text)?.index ?? n; // the regex engine scans faster than a JS loop
        if (j > i) {
          const line = this.live[this.row]!;
          if (this.col === line.length) line.append(text.slice(i, j), this.style, j - i);
          else for (let k = i; k < j; k++) line.set(this.col + k - i, text[k]!, this.style);
          this.col += j - i;
          i = j;
          continue;
        }
      }
      const cp = text.codePointAt(i)!;
      const ch = cp > 0xffff ? text.slice(i, i + 2) : text[i]!;
      i += ch.length;
      this.feed(ch);
    }
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
    for (const line of this.live) {
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
      case '\t':
        this.put('\t');
        return;
      case '\x9b': // 8-bit CSI
        this.state = State.Csi;
        this.seq = '';
        return;
    }
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return; // other C0 controls (BEL, SO, SI…) display nothing
    this.put(ch);
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
          this.live.length = this.row + 1;
        }
        return;
      }
      case 'P': {
        this.live[this.row]!.splice(this.col, n);
        return;
      }
      case 'X': {
        const line = this.live[this.row]!;
        for (let i = this.col; i < Math.min(line.length, this.col + n); i++) line.set(i, ' ', '');
        return;
      }
    }
  }

  /** style → SGR parameters → resulting style: coloured output repeats the same few transitions. */
  private sgrCache = new Map<string, Map<string, string>>();

  private sgr(params: string): void {
    const from = this.style;
    let byParams = this.sgrCache.get(from);
    const cached = byParams?.get(params);
    if (cached !== undefined) {
      this.style = cached;
      return;
    }
    this.applySgr(params);
    if (!byParams) {
      if (this.sgrCache.size >= 256) this.sgrCache.clear();
      byParams = new Map();
      this.sgrCache.set(from, byParams);
    }
    if (byParams.size < 256) byParams.set(params, this.style);
  }

  private applySgr(params: string): void {
    const parts = params.split(';');
    const resetAt = parts.lastIndexOf('0');
    if (params === '' || parts.every((p) => p === '' || p === '0')) {
      this.style = '';
      return;
    }
    if (resetAt >= 0 && !isExtendedColourArgument(parts, resetAt)) {
      this.style = '';
      const rest = parts.slice(resetAt + 1);
      if (rest.length > 0) this.style = `\x1b[${rest.join(';')}m`;
      return;
    }
    const style = this.style + `\x1b[${params}m`;
    const pieces = style.split('\x1b[').filter(Boolean);
    this.style = pieces.length > MAX_STYLE_PARTS ? pieces.slice(-MAX_STYLE_PARTS).map((p) => '\x1b[' + p).join('') : style;
  }

  private eraseInLine(mode: number): void {
    const line = this.live[this.row]!;
    if (mode === 0) line.truncate(this.col);
    else if (mode === 1) for (let i = 0; i <= this.col && i < line.length; i++) line.set(i, ' ', '');
    else line.truncate(0);
  }

  private put(ch: string): void {
    this.live[this.row]!.set(this.col, ch, this.style);
    this.col++;
  }

  private newline(carriageReturn = true): void {
    this.row++;
    if (carriageReturn) this.col = 0;
    if (this.row >= this.live.length) this.live.push(new Line());
    // Lines the cursor can no longer reach are final: render them once and drop the cells.
    while (this.live.length > MAX_CURSOR_UP + 1 && this.row > 0) {
      this.commit(this.live.shift()!);
      this.row--;
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
    this.live = [new Line()];
    this.row = 0;
    this.col = 0;
  }
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
