// The entry state machine: decoded shell output in, one SessionEntry per command out.
// Zones follow our markers: A…B is the prompt, B…C the echoed input, C…D the command's output.
// The recorder only observes: it never changes what reaches the screen.
import { makeEntry, type SessionEntry } from '../session/entry.js';
import { TerminalText } from '../text/terminal-text.js';
import { MarkerTokenizer, type Marker, type Token } from './tokenizer.js';

export type RecorderOptions = {
  nonce: string;
  /** Receives each finished entry (the proxy appends it to the terminal's log). */
  write: (entry: SessionEntry) => void;
  now?: () => Date;
  headChars?: number;
  tailChars?: number;
};

export const HEAD_CHARS = 64 * 1024;
export const TAIL_CHARS = 192 * 1024;
const MAX_PROMPT = 16 * 1024;
const MAX_ECHO = 64 * 1024;
/** Output held back from the text model so zsh's PROMPT_SP tail can be cut before rendering. */
const HOLDBACK = 2048;
// zsh prints PROMPT_EOL_MARK, padding and `\r \r` before precmd, i.e. inside C…D.
const PROMPT_SP_TAIL = /(?:\x1b\[[0-9;]*m)*[^\r\n]?(?:\x1b\[[0-9;]*m)* *\r \r$/;
const EXIT_COMMAND = /^\s*(?:exit|logout)(?:\s|$)/;

type OpenCommand = {
  startedAt: Date;
  cwd?: string;
  prompt: string;
  echo: string;
  /** The continuation prompts (PS2) drawn inside the echo, as plain text. */
  continuation: string[];
  /** Where in `echo` each continuation prompt began. */
  continuationAt: number[];
  output: TerminalText;
  held: string;
  sawOutput: boolean;
  alt: boolean;
};

type Zone = 'none' | 'prompt' | 'input' | 'output';

export class Recorder {
  private readonly tokenizer: MarkerTokenizer;
  private readonly now: () => Date;
  private zone: Zone = 'none';
  private promptRaw = '';
  private lastPrompt = '';
  private echoRaw = '';
  private continuation: string[] = [];
  private continuationRaw: string | undefined; // inside a PS2: its text so far
  private continuationAt: number[] = [];
  private cwd: string | undefined;
  private command: string | undefined;
  private skip = false;
  private histIgnoreSpace = false;
  private cur: OpenCommand | undefined;
  entriesWritten = 0;

  constructor(private readonly options: RecorderOptions) {
    this.tokenizer = new MarkerTokenizer(options.nonce);
    this.now = options.now ?? (() => new Date());
  }

  feed(text: string): void {
    for (const token of this.tokenizer.feed(text)) this.token(token);
  }

  /** The shell is gone: an open command becomes a partial entry if there is anything to keep. */
  finish(): void {
    this.closePartial();
  }

  private token(token: Token): void {
    if (token.type === 'mark') return this.mark(token.mark);
    if (token.type === 'alt') {
      if (this.cur && this.zone === 'output') {
        this.cur.alt = token.on;
        if (token.on) this.cur.sawOutput = true;
      }
      return;
    }
    const text = token.text;
    switch (this.zone) {
      case 'prompt':
        if (this.promptRaw.length < MAX_PROMPT) this.promptRaw += text;
        return;
      case 'input':
        if (this.echoRaw.length < MAX_ECHO) this.echoRaw += text;
        if (this.continuationRaw !== undefined && this.continuationRaw.length < MAX_PROMPT) this.continuationRaw += text;
        return;
      case 'output':
        if (this.cur && !this.cur.alt) this.output(this.cur, text);
        return;
    }
  }

  private output(cur: OpenCommand, text: string): void {
    cur.sawOutput = true;
    // Keep at least the last HOLDBACK characters out of the model, without copying big chunks.
    if (text.length >= HOLDBACK) {
      if (cur.held !== '') cur.output.write(cur.held);
      cur.output.write(text.slice(0, text.length - HOLDBACK));
      cur.held = text.slice(text.length - HOLDBACK);
      return;
    }
    cur.held += text;
    if (cur.held.length > HOLDBACK * 2) {
      cur.output.write(cur.held.slice(0, cur.held.length - HOLDBACK));
      cur.held = cur.held.slice(cur.held.length - HOLDBACK);
    }
  }

  private mark(mark: Marker): void {
    switch (mark.kind) {
      case 'A':
        if (this.cur) this.closePartial(); // the D was lost: keep what we have
        this.zone = 'prompt';
        this.promptRaw = ''; // a redrawn prompt replaces the previous one: the last wins
        this.command = undefined;
        this.skip = false;
        return;
      case 'B':
        if (this.zone === 'prompt') this.lastPrompt = this.promptRaw;
        this.zone = 'input';
        this.echoRaw = '';
        this.continuation = [];
        this.continuationRaw = undefined;
        this.continuationAt = [];
        return;
      case 'A2':
        if (this.zone === 'input') {
          this.continuationRaw = '';
          if (this.echoRaw.length < MAX_ECHO) this.continuationAt.push(this.echoRaw.length);
        }
        return;
      case 'B2':
        if (this.continuationRaw !== undefined) this.continuation.push(plainText(this.continuationRaw));
        this.continuationRaw = undefined;
        return;
      case 'C':
        if (this.cur && !this.cur.sawOutput) return; // emitted twice (another integration and ours)
        if (this.cur) this.closePartial();
        this.cur = {
          startedAt: this.now(),
          cwd: this.cwd,
          prompt: this.lastPrompt,
          echo: this.zone === 'input' ? this.echoRaw : '',
          continuation: this.zone === 'input' ? this.continuation : [],
          continuationAt: this.zone === 'input' ? this.continuationAt : [],
          output: new TerminalText({
            headChars: this.options.headChars ?? HEAD_CHARS,
            tailChars: this.options.tailChars ?? TAIL_CHARS,
            eraseDisplayClears: true,
          }),
          held: '',
          sawOutput: false,
          alt: false,
        };
        this.zone = 'output';
        // No reset of `command`: pwsh announces the line (E) before C; bash and zsh after it, with D.
        return;
      case 'E':
        this.command = mark.command;
        return;
      case 'P':
        if (mark.key === 'Cwd') this.cwd = mark.value;
        else if (mark.key === 'HistIgnoreSpace') this.histIgnoreSpace = mark.value === '1';
        else if (mark.key === 'Skip') this.skip = mark.value === '1';
        return;
      case 'D': {
        const cur = this.cur;
        if (!cur) return; // empty Enter, Ctrl-C at the prompt, a duplicate or foreign D
        this.cur = undefined;
        this.zone = 'none';
        const typed = typedCommand(cur, this.command);
        const skip = this.skip || (this.histIgnoreSpace && typed.command.startsWith(' '));
        this.command = undefined;
        this.skip = false;
        if (skip) return; // the shell did not keep this line in its history; neither do we
        this.emit(cur, typed, mark.exitCode);
        return;
      }
    }
  }

  private closePartial(): void {
    const cur = this.cur;
    if (!cur) return;
    this.cur = undefined;
    this.zone = 'none';
    const typed = typedCommand(cur, this.command);
    this.command = undefined;
    if (EXIT_COMMAND.test(typed.command)) return; // `exit`: the shell ends before it can report a D
    if (this.histIgnoreSpace && typed.command.startsWith(' ')) return;
    const rendered = renderOutput(cur);
    if (typed.command.trim() === '' && rendered.plain.trim() === '') return;
    this.emit(cur, typed, undefined, rendered);
  }

  private emit(cur: OpenCommand, typed: Typed, exitCode: number | undefined, rendered = renderOutput(cur)): void {
    const ended = this.now();
    const entry = makeEntry({
      prompt: cur.prompt,
      prompt_ansi: cur.prompt,
      command: typed.command.replace(/^\s+/, ''),
      command_shown: typed.shown?.replace(/^\s+/, ''),
      output: rendered.plain,
      output_ansi: rendered.ansi,
      cwd: cur.cwd,
      ended_at: ended,
      duration_ms: Math.max(0, ended.getTime() - cur.startedAt.getTime()),
      exit_code: exitCode,
    });
    this.entriesWritten++;
    this.options.write(entry);
  }
}

function renderOutput(cur: OpenCommand): { plain: string; ansi: string } {
  cur.output.write(cur.held.replace(PROMPT_SP_TAIL, ''));
  cur.held = '';
  return cur.output.snapshot();
}

function plainText(raw: string): string {
  const text = new TerminalText();
  text.write(raw);
  return text.snapshot().plain;
}

/** The command line as the terminal echoed it, for lines the shell did not report (not in history). */
function echoedCommand(echo: string): string {
  return echo === '' ? '' : plainText(echo).replace(/\s+$/, '');
}

type Typed = { command: string; shown?: string };

/** A line of the echo without the continuation prompt drawn at its start. */
function withoutContinuation(line: string, prompts: readonly string[]): string {
  for (const prompt of prompts) {
    const visible = prompt.trimEnd(); // a trailing space may be lost in rendering
    if (visible === '' || !line.startsWith(visible)) continue;
    let rest = line.slice(visible.length);
    for (let pad = prompt.length - visible.length; pad > 0 && rest.startsWith(' '); pad--) rest = rest.slice(1);
    return rest;
  }
  return line;
}

/** Tokens of a command line, whatever joins them: `a; b` and `a\nb` say the same. */
const tokens = (command: string): string => command.replace(/[\s;]+/g, '');

/**
 * The first line of each piece of the echo that a continuation prompt starts (and of the piece
 * before the first). Typed ahead while bash runs between two lines, a line is echoed once by the
 * terminal itself (readline is not reading then) and again after the next PS2: what follows a
 * piece's first line is that echo, never a line of the command.
 */
function promptedLines(cur: OpenCommand): string[] {
  const cuts = [0, ...cur.continuationAt, cur.echo.length];
  const lines: string[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const piece = echoedCommand(cur.echo.slice(cuts[i], cuts[i + 1]));
    lines.push(piece.split('\n', 1)[0] ?? '');
  }
  return lines;
}

/**
 * The command of an entry, and how the terminal showed it when continuation prompts were drawn.
 * The shell's own report wins (zsh and pwsh report multi-line commands exactly), except that bash
 * reports one as its history keeps it, joined on one line: the lines typed are then the command,
 * when they hold the same words as the report.
 */
function typedCommand(cur: OpenCommand, reported: string | undefined): Typed {
  if (cur.continuation.length === 0) return { command: reported ? reported : echoedCommand(cur.echo) };
  const strip = (shownLines: string[]): string =>
    shownLines.map((l, i) => (i === 0 ? l : withoutContinuation(l, cur.continuation))).join('\n');
  let shown = echoedCommand(cur.echo);
  let lines = strip(shown.split('\n'));
  if (reported && tokens(reported) !== tokens(lines)) {
    const prompted = promptedLines(cur);
    if (prompted.length > 1 && tokens(reported) === tokens(strip(prompted))) {
      shown = prompted.join('\n');
      lines = strip(prompted);
    }
  }
  let command = reported ? reported : lines;
  if (reported && !reported.includes('\n') && lines.includes('\n') && tokens(reported) === tokens(lines)) command = lines;
  return shown !== command ? { command, shown } : { command };
}

/** For tests and tools: a whole recorded byte stream (already decoded) → its entries. */
export function recordText(text: string | string[], nonce: string, now?: () => Date): SessionEntry[] {
  const entries: SessionEntry[] = [];
  const recorder = new Recorder({ nonce, write: (e) => entries.push(e), now });
  for (const chunk of typeof text === 'string' ? [text] : text) recorder.feed(chunk);
  recorder.finish();
  return entries;
}
