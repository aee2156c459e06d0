// SessionEntry: one recorded command. Normalisation is the same at construction and at load,
// so a log written by any version of sivtr (or by the pure-shell hooks) reads back the same way.
import { renderTerminalText, trimTrailingNewlines } from '../text/terminal-text.js';
import { parseJsonlLine, type TextHint } from './jsonl.js';

export type SessionEntry = {
  prompt: string;
  command: string;
  output: string;
  prompt_ansi?: string;
  output_ansi?: string;
  /** The command as the terminal showed it, continuation prompts (PS2) included; only when that differs. */
  command_shown?: string;
  cwd?: string;
  ended_at?: string;
  duration_ms?: number;
  exit_code?: number;
};

export type EntryFields = {
  prompt?: string;
  command: string;
  output?: string;
  prompt_ansi?: string;
  output_ansi?: string;
  command_shown?: string;
  cwd?: string;
  ended_at?: string | Date;
  duration_ms?: number;
  exit_code?: number;
};

// Anything but tab and newline among the C0 controls (and ESC/CSI) needs the terminal model.
const NEEDS_MODEL = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;
const SGR_ONLY = /\x1b\[[0-9;:]*m/g;

function crlf(text: string): string {
  return text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
}

/** Plain and ANSI variants of one field; `ansi` is undefined when it adds nothing. */
function renderField(plainSource: string, ansiSource: string | undefined): { plain: string; ansi?: string } {
  // Plain text (no ESC, CSI, CR or other control character; nearly every prompt and output):
  // nothing for the model or the colour pass to do.
  if (ansiSource === undefined && !NEEDS_MODEL.test(plainSource)) return { plain: trimTrailingNewlines(plainSource) };
  const raw = crlf(plainSource);
  const plain = NEEDS_MODEL.test(raw) ? renderTerminalText(raw).plain : trimTrailingNewlines(raw);
  const colourSource = ansiSource !== undefined ? crlf(ansiSource) : raw;
  if (!colourSource.includes('\x1b') && !colourSource.includes('\x9b')) return { plain };
  let ansi: string;
  const withoutSgr = colourSource.replace(SGR_ONLY, '');
  if (!NEEDS_MODEL.test(withoutSgr) && trimTrailingNewlines(withoutSgr) === plain) {
    ansi = trimTrailingNewlines(colourSource); // already what the model would keep: skip re-rendering
  } else {
    ansi = renderTerminalText(colourSource).ansi;
  }
  return ansi !== '' && ansi !== plain ? { plain, ansi } : { plain };
}

function isoWithOffset(value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  return value === '' ? undefined : value;
}

function wholeNumber(value: unknown, min = -Infinity): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? Math.round(value) : undefined;
}

/** Builds a normalised entry; keys come out in the order the log format fixes. */
export function makeEntry(fields: EntryFields): SessionEntry {
  const rawPrompt = crlf(fields.prompt ?? '');
  const prompt = renderField(rawPrompt, fields.prompt_ansi);
  // A prompt keeps one trailing newline: it decides whether the command goes on the next line.
  const promptNewline = rawPrompt.endsWith('\n') && prompt.plain !== '' ? '\n' : '';
  const output = renderField(fields.output ?? '', fields.output_ansi);
  const entry: SessionEntry = {
    prompt: prompt.plain + promptNewline,
    command: trimTrailingNewlines(crlf(fields.command)),
    output: output.plain,
  };
  if (prompt.ansi !== undefined) entry.prompt_ansi = prompt.ansi + promptNewline;
  if (output.ansi !== undefined) entry.output_ansi = output.ansi;
  const shown = fields.command_shown !== undefined ? trimTrailingNewlines(crlf(fields.command_shown)) : '';
  if (shown !== '' && shown !== entry.command) entry.command_shown = shown;
  if (fields.cwd) entry.cwd = fields.cwd;
  const endedAt = isoWithOffset(fields.ended_at);
  if (endedAt !== undefined) entry.ended_at = endedAt;
  const duration = wholeNumber(fields.duration_ms, 0);
  if (duration !== undefined) entry.duration_ms = duration;
  const exitCode = wholeNumber(fields.exit_code);
  if (exitCode !== undefined && Number.isInteger(fields.exit_code)) entry.exit_code = exitCode;
  return entry;
}

const optionalString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A log line as parsed, shape-checked but not yet normalised (normalising is the costly part). */
export type RawEntry = { prompt?: string; command: string; output: string; [key: string]: unknown };

export function isEntryShape(value: unknown): value is RawEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.command === 'string' && typeof v.output === 'string' && (v.prompt === undefined || typeof v.prompt === 'string');
}

export function normaliseRaw(v: RawEntry): SessionEntry {
  return makeEntry({
    prompt: optionalString(v.prompt),
    command: v.command,
    output: v.output,
    prompt_ansi: optionalString(v.prompt_ansi),
    output_ansi: optionalString(v.output_ansi),
    command_shown: optionalString(v.command_shown),
    cwd: optionalString(v.cwd),
    ended_at: optionalString(v.ended_at),
    duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : undefined,
    exit_code: typeof v.exit_code === 'number' ? v.exit_code : undefined,
  });
}

/**
 * Finds, in a log line as written (JSON text), anything that normalising might change: an escape
 * of a control character or CR (\b \f \r \u…; a raw one cannot be in JSON text, and a \u
 * escape of an ordinary character is only a false alarm), a DEL or CSI character, a string
 * ending in a newline (\n"), colour or command_shown fields. A line where it finds nothing holds
 * only texts makeEntry keeps as they are (tab and inner newlines are plain text), so its raw
 * entry needs no normalising when `normalAsIs` also holds. What it finds lies within one line
 * (a JSON escape never crosses one): tested once over many lines, a miss is a miss for each of them.
 */
export const MAY_NEED_NORMALISING: TextHint = { test: mayNeedNormalising };

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/**
 * MAY_NEED_NORMALISING's test by indexOf scans, not a regex (/\\[bfru]|[\x7f\x9b]|\\n"|_ansi"|command_shown"/
 * tried its five branches at every character, a fifth of a cold build of 10,000 terminal
 * records); unlike that regex it reads an escaped backslash as one character, so the b, n" or u
 * after one (a Windows path) is not taken for an escape.
 */
function mayNeedNormalising(text: string): boolean {
  for (let at = text.indexOf('\\'); at !== -1; at = text.indexOf('\\', at + 1)) {
    const next = text.charCodeAt(at + 1);
    // \b \f \r \u, or \n closing a string ("\n\"").
    if (next === 0x62 || next === 0x66 || next === 0x72 || next === 0x75) return true;
    if (next === 0x6e && text.charCodeAt(at + 2) === QUOTE) return true;
    // An escaped backslash is skipped whole: what follows it is ordinary text.
    if (next === BACKSLASH) at++;
  }
  return text.includes('\x7f') || text.includes('\x9b') || text.includes('_ansi"') || text.includes('command_shown"');
}

/** The fields of an entry that a line MAY_NEED_NORMALISING finds nothing in does not change by normalising. */
export type PlainEntry = Pick<SessionEntry, 'prompt' | 'command' | 'output' | 'cwd' | 'ended_at' | 'exit_code'>;

/**
 * True when the raw entry of a line MAY_NEED_NORMALISING found nothing in is its own normalised
 * entry for every field of PlainEntry: its texts are kept as they are (see MAY_NEED_NORMALISING),
 * and its other fields have the types and values makeEntry keeps (a cwd or time that is not an
 * empty string, a whole exit code).
 */
export function normalAsIs(raw: RawEntry): raw is RawEntry & PlainEntry {
  const { prompt, cwd, ended_at: at, exit_code: exit } = raw;
  return typeof prompt === 'string' && (cwd === undefined || (typeof cwd === 'string' && cwd !== '')) && (at === undefined || (typeof at === 'string' && at !== '')) && (exit === undefined || Number.isInteger(exit));
}

/** A parsed JSON value → a normalised entry, or undefined when it is not an entry at all. */
export function entryFromJson(value: unknown): SessionEntry | undefined {
  return isEntryShape(value) ? normaliseRaw(value) : undefined;
}

/** A whole log line → its raw entry, or undefined for blank, corrupt or foreign lines. */
export function parseRawEntryLine(line: string): RawEntry | undefined {
  const value = parseJsonlLine(line);
  return isEntryShape(value) ? value : undefined;
}

/** A whole log line → entry, or undefined for blank, corrupt or foreign lines. */
export function parseEntryLine(line: string): SessionEntry | undefined {
  const raw = parseRawEntryLine(line);
  return raw && normaliseRaw(raw);
}

export function serializeEntry(entry: SessionEntry): string {
  return JSON.stringify(makeEntry(entry));
}

/** True when `text` holds a character that is not white space (what trim() would keep), without trim()'s copy. */
export function hasText(text: string): boolean {
  const first = text.charCodeAt(0);
  return (first > 32 && first < 127) || /\S/.test(text);
}

/** An entry with neither command nor output is not a record, but it keeps its position. */
export function isRecord(entry: Pick<SessionEntry, 'command' | 'output'>): boolean {
  return hasText(entry.command) || hasText(entry.output);
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl === -1 ? text : text.slice(0, nl);
}

/** A record's title: the first line of its command, else of its output. */
export const recordTitle = (entry: Pick<SessionEntry, 'command' | 'output'>): string => firstLine(entry.command.trim()) || firstLine(entry.output.trim());

/** Where the command goes relative to the prompt, exactly as a terminal showed it. */
export function renderInput(prompt: string, command: string): string {
  if (prompt === '') return command;
  if (prompt.endsWith('\n')) return prompt + command;
  return /\s$/.test(prompt) ? prompt + command : `${prompt} ${command}`;
}

export function renderBlock(input: string, output: string): string {
  if (output === '') return input;
  return input === '' ? output : `${input}\n${output}`;
}
