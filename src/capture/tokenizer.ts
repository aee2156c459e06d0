// Incremental tokenizer for the recorder: splits the shell's (decoded) output into plain terminal
// text, sivtr's own semantic markers (OSC 133 / 633 carrying the session nonce), and alternate-screen
// switches. State carries across `feed` calls, so a marker split at any byte is still recognised.
// Markers without our nonce (nested shells, ssh, `cat` of an old log, a terminal's own integration)
// stay ordinary text.

export type Marker =
  | { kind: 'A' }
  | { kind: 'B' }
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
  /** The raw text of an escape sequence still open at the end of the last chunk. */
  private pending = '';
  private payload = '';

  constructor(private readonly nonce: string) {}

  feed(chunk: string): Token[] {
    const tokens: Token[] = [];
    let textStart = 0; // start of the plain text run inside `chunk` not yet emitted
    const flushText = (end: number): void => {
      if (end > textStart) tokens.push({ type: 'text', text: chunk.slice(textStart, end) });
    };
    let i = 0;
    while (i < chunk.length) {
      if (this.state === State.Ground) {
        const esc = chunk.indexOf('\x1b', i);
        if (esc < 0) {
          i = chunk.length;
          break;
        }
        flushText(esc);
        this.state = State.Escape;
        this.pending = '\x1b';
        i = esc + 1;
        textStart = i;
        continue;
      }
      const ch = chunk[i]!;
      i++;
      switch (this.state) {
        case State.Escape:
          if (ch === ']') {
            this.state = State.Osc;
            this.pending += ch;
            this.payload = '';
          } else if (ch === '[') {
            this.state = State.Csi;
            this.pending += ch;
            this.payload = '';
          } else {
            this.emitPending(tokens, ch); // ESC x: not ours, plain text for the text model
          }
          break;
        case State.Osc:
          if (ch === '\x07' || ch === '\x9c') this.endOsc(tokens, ch);
          else if (ch === '\x1b') {
            this.state = State.OscEscape;
            this.pending += ch;
          } else if (this.payload.length >= MAX_OSC) {
            this.emitPending(tokens, ch);
          } else {
            this.pending += ch;
            this.payload += ch;
          }
          break;
        case State.OscEscape:
          if (ch === '\\') {
            this.pending = this.pending.slice(0, -1);
            this.endOsc(tokens, '\x1b\\');
          } else {
            // ESC inside an OSC aborts it; the ESC starts a new sequence.
            const aborted = this.pending.slice(0, -1);
            tokens.push({ type: 'text', text: aborted });
            this.pending = '\x1b';
            this.state = State.Escape;
            i--; // re-read `ch` in the Escape state
          }
          break;
        case State.Csi:
          this.pending += ch;
          if (ch >= '@' && ch <= '~') {
            const alt = ALT_SCREEN.exec(this.payload + ch);
            if (alt) tokens.push({ type: 'alt', on: alt[1] === 'h' });
            tokens.push({ type: 'text', text: this.pending });
            this.reset();
          } else if (this.payload.length >= MAX_CSI) {
            this.emitPending(tokens, '');
          } else {
            this.payload += ch;
          }
          break;
      }
      textStart = i;
    }
    if (this.state === State.Ground) flushText(chunk.length);
    return tokens;
  }

  private endOsc(tokens: Token[], terminator: string): void {
    const raw = this.pending + terminator;
    const mark = parseMarker(this.payload, this.nonce);
    tokens.push(mark ? { type: 'mark', mark, raw } : { type: 'text', text: raw });
    this.reset();
  }

  /** Not a sequence we track (or too long): hand the raw bytes on as text. */
  private emitPending(tokens: Token[], extra: string): void {
    tokens.push({ type: 'text', text: this.pending + extra });
    this.reset();
  }

  private reset(): void {
    this.state = State.Ground;
    this.pending = '';
    this.payload = '';
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
