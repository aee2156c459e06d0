// Incremental tokenizer for the recorder: splits the shell's (decoded) output into plain terminal
// text, sivtr's own semantic markers (OSC 133 / 633 carrying the session nonce), and alternate-screen
// switches. State carries across `feed` calls, so a marker split at any byte is still recognised.
// Markers without our nonce (nested shells, ssh, `cat` of an old log, a terminal's own integration)
// stay ordinary text.

export type Marker =
  | { kind: 'A' }
  | { kind: 'B' }
  /** Start and end of a continuation prompt (PS2): `133;A;k=s` and `133;B;k=s`, as kitty marks it. */
  | { kind: 'A2' }
  | { kind: 'B2' }
  | { kind: 'C' }
  | { kind: 'D'; exitCode?: number }
  | { kind: 'E'; command: string }
  | { kind: 'P'; key: string; value: string };

export type Token =
  | { type: 'text'; text: string }
  | { type: 'mark'; mark: Marker; raw: string }
  | { type: 'alt'; on: boolean };

const enum State {
  Ground,
  Escape,
  Osc,
  OscEscape,
  Csi,
}

/** Long heredocs travel in `633;E`; anything else that long is not ours. */
const MAX_OSC = 256 * 1024;
const MAX_CSI = 256;
const ALT_SCREEN = /^\?(?:1049|1047|47)([hl])$/;

/** VS Code's 633 escaping, decoded: `\\` → `\`, `\xHH` → that byte. */
export function unescape633(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\\\|\\x([0-9a-fA-F]{2})/g, (m, hex: string | undefined) =>
    hex === undefined ? '\\' : String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** The inverse, for tests and the PowerShell side: `\`, `;` and bytes ≤ 0x20 escaped. */
export function escape633(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === ';' || code <= 0x20) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out;
}

/** Parses an OSC payload (between `ESC ]` and ST); undefined when it is not one of our markers. */
export function parseMarker(payload: string, nonce: string): Marker | undefined {
  if (payload.startsWith('133;')) {
    const fields = payload.slice(4).split(';');
    if (!fields.includes(`sivtr=${nonce}`)) return undefined;
    const letter = fields[0];
    if ((letter === 'A' || letter === 'B') && fields.includes('k=s')) return { kind: letter === 'A' ? 'A2' : 'B2' };
    if (letter === 'A' || letter === 'B' || letter === 'C') return { kind: letter };
    if (letter === 'D') {
      const code = fields[1] !== undefined && /^-?\d+$/.test(fields[1]) ? Number(fields[1]) : undefined;
      return code === undefined ? { kind: 'D' } : { kind: 'D', exitCode: code };
    }
    return undefined;
  }
  if (payload.startsWith('633;')) {
    const fields = payload.slice(4).split(';');
    if (fields.at(-1) !== nonce || fields.length !== 3) return undefined;
    if (fields[0] === 'E') return { kind: 'E', command: unescape633(fields[1]!) };
    if (fields[0] === 'P') {
      const eq = fields[1]!.indexOf('=');
      if (eq <= 0) return undefined;
      return { kind: 'P', key: fields[1]!.slice(0, eq), value: unescape633(fields[1]!.slice(eq + 1)) };
    }
  }
  return undefined;
}

export class MarkerTokenizer {
  private state = State.Ground;
  /** The raw text of the escape sequence being read (it may have begun in an earlier chunk). */
  private pending = '';
  private payload = '';

  constructor(private readonly nonce: string) {}

  /**
   * Text runs are split only at our markers and alternate-screen switches: every other sequence
   * stays inside its run, so coloured output does not become thousands of tokens.
   */
  feed(chunk: string): Token[] {
    const tokens: Token[] = [];
    let textStart = 0; // start of the text run inside `chunk` not yet emitted
    let seqStart = -1; // where the open sequence began in `chunk`; -1: in an earlier chunk
    const flushText = (end: number): void => {
      if (end > textStart) tokens.push({ type: 'text', text: chunk.slice(textStart, end) });
      textStart = end;
    };
    const done = (): void => {
      this.state = State.Ground;
      this.pending = '';
      this.payload = '';
      seqStart = -1;
    };
    // A finished sequence that is plain text: it stays in the run, or (begun in an earlier chunk,
    // held back then) is handed on now.
    const plain = (i: number): void => {
      if (seqStart < 0) {
        tokens.push({ type: 'text', text: this.pending });
        textStart = i;
      }
      done();
    };
    const structural = (token: Token, i: number, rawIsText: boolean): void => {
      if (seqStart >= 0) flushText(seqStart);
      tokens.push(token);
      if (rawIsText && seqStart >= 0) textStart = seqStart;
      else {
        if (rawIsText) tokens.push({ type: 'text', text: this.pending });
        textStart = i;
      }
      done();
    };
    const endOsc = (i: number): void => {
      const mark = parseMarker(this.payload, this.nonce);
      if (mark) structural({ type: 'mark', mark, raw: this.pending }, i, false);
      else plain(i);
    };
    let i = 0;
    while (i < chunk.length) {
      if (this.state === State.Ground) {
        const esc = chunk.indexOf('\x1b', i);
        if (esc < 0) {
          i = chunk.length;
          break;
        }
        // A CSI sequence whole in this chunk (colours, mostly) is read in one go: it stays in the text
        // run unless it switches the alternate screen.
        if (chunk.charCodeAt(esc + 1) === 0x5b) {
          let f = esc + 2;
          while (f < chunk.length && f - esc <= MAX_CSI) {
            const code = chunk.charCodeAt(f);
            if (code < 0x20 || code > 0x3f) break;
            f++;
          }
          const final = chunk.charCodeAt(f);
          if (final >= 0x40 && final <= 0x7e) {
            if ((final === 0x68 || final === 0x6c) && ALT_SCREEN.test(chunk.slice(esc + 2, f + 1))) {
              flushText(esc);
              tokens.push({ type: 'alt', on: final === 0x68 });
              textStart = esc; // the switch itself stays text for the model
            }
            i = f + 1;
            continue;
          }
        }
        seqStart = esc;
        this.state = State.Escape;
        this.pending = '\x1b';
        i = esc + 1;
        continue;
      }
      const ch = chunk[i]!;
      i++;
      switch (this.state) {
        case State.Escape:
          this.pending += ch;
          if (ch === ']') {
            this.state = State.Osc;
            this.payload = '';
          } else if (ch === '[') {
            this.state = State.Csi;
            this.payload = '';
          } else {
            plain(i); // ESC x: not ours, plain text for the text model
          }
          break;
        case State.Osc:
          this.pending += ch;
          if (ch === '\x07' || ch === '\x9c') endOsc(i);
          else if (ch === '\x1b') this.state = State.OscEscape;
          else if (this.payload.length >= MAX_OSC) plain(i);
          else this.payload += ch;
          break;
        case State.OscEscape:
          if (ch === '\\') {
            this.pending += ch;
            endOsc(i);
          } else {
            // ESC inside an OSC aborts it; that ESC starts a new sequence.
            const escAt = i - 2; // -1 when the ESC ended the previous chunk
            if (seqStart < 0) {
              tokens.push({ type: 'text', text: this.pending.slice(0, -1) });
              textStart = Math.max(escAt, 0);
            }
            seqStart = escAt;
            this.pending = '\x1b';
            this.payload = '';
            this.state = State.Escape;
            i--; // re-read `ch` in the Escape state
          }
          break;
        case State.Csi:
          this.pending += ch;
          if (ch >= '@' && ch <= '~') {
            const alt = ALT_SCREEN.exec(this.payload + ch);
            if (alt) structural({ type: 'alt', on: alt[1] === 'h' }, i, true);
            else plain(i);
          } else if (this.payload.length >= MAX_CSI) {
            plain(i);
          } else {
            this.payload += ch;
          }
          break;
      }
    }
    if (this.state === State.Ground) flushText(chunk.length);
    else if (seqStart >= 0) flushText(seqStart); // the open sequence waits in `pending`
    return tokens;
  }
}

/** Adjacent text tokens merged: the chunking-independent form of a token stream. */
export function normaliseTokens(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    const last = out.at(-1);
    if (token.type === 'text' && last?.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + token.text };
    else if (token.type !== 'text' || token.text !== '') out.push(token);
  }
  return out;
}
