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
        return;
      case 'C':
        if (this.cur && !this.cur.sawOutput) return; // emitted twice (another integration and ours)
        if (this.cur) this.closePartial();
        this.cur = {
          startedAt: this.now(),
          cwd: this.cwd,
          prompt: this.lastPrompt,
          echo: this.zone === 'input' ? this.echoRaw : '',
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
        const command = this.command ? this.command : echoedCommand(cur.echo);
        const skip = this.skip || (this.histIgnoreSpace && command.startsWith(' '));
        this.command = undefined;
        this.skip = false;
        if (skip) return; // the shell did not keep this line in its history; neither do we
        this.emit(cur, command, mark.exitCode);
        return;
      }
    }
  }

  private closePartial(): void {
    const cur = this.cur;
    if (!cur) return;
    this.cur = undefined;
    this.zone = 'none';
    const command = this.command ? this.command : echoedCommand(cur.echo);
    this.command = undefined;
    if (EXIT_COMMAND.test(command)) return; // `exit`: the shell ends before it can report a D
    if (this.histIgnoreSpace && command.startsWith(' ')) return;
    const rendered = renderOutput(cur);
    if (command.trim() === '' && rendered.plain.trim() === '') return;
    this.emit(cur, command, undefined, rendered);
  }

  private emit(cur: OpenCommand, command: string, exitCode: number | undefined, rendered = renderOutput(cur)): void {
    const ended = this.now();
    const entry = makeEntry({
      prompt: cur.prompt,
      prompt_ansi: cur.prompt,
      command: command.replace(/^\s+/, ''),
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

/** The command line as the terminal echoed it, for lines the shell did not report (not in history). */
function echoedCommand(echo: string): string {
  if (echo === '') return '';
  const text = new TerminalText();
  text.write(echo);
  return text.snapshot().plain.replace(/\s+$/, '');
}

/** For tests and tools: a whole recorded byte stream (already decoded) → its entries. */
export function recordText(text: string | string[], nonce: string, now?: () => Date): SessionEntry[] {
  const entries: SessionEntry[] = [];
  const recorder = new Recorder({ nonce, write: (e) => entries.push(e), now });
  for (const chunk of typeof text === 'string' ? [text] : text) recorder.feed(chunk);
  recorder.finish();
  return entries;
}
