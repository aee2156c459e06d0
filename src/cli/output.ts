// The CLI's one output kernel: what goes to stdout, notes and warnings on stderr, the colour
// decision, styles, local times, durations, paths, one-line titles, tables and the `══ ref ══`
// heading. Commands compose these; none formats a time or decides on colour by itself.
import { home as homeDir } from '../files.js';
import { warn } from '../errors.js';
import { count } from '../plural.js';
import { mayHoldSecret, mayHoldSecretAcross, SecretTally } from '../text/secrets.js';
import { isTerminal, writeTo } from './stdio.js';

export { warn };

// Every text that leaves through this kernel (stdout here, the clipboard in deliver.ts) is masked
// unless the command was given --reveal; main.ts says once, at the end, how many were masked.
const secrets = { reveal: false, tally: new SecretTally() };

export function revealSecrets(reveal: boolean): void {
  secrets.reveal = reveal;
}

/** Whether this command was given --reveal: nothing it prints is masked. */
export function revealing(): boolean {
  return secrets.reveal;
}

/** The text as it may leave sivtr: secrets masked, unless --reveal. */
export function masked(text: string): string {
  return secrets.reveal ? text : secrets.tally.mask(text);
}

/** Every string in a JSON-able value as it may leave sivtr. */
export function maskedValue<T>(value: T): T {
  return secrets.reveal ? value : secrets.tally.maskDeep(value);
}

/** `masked 2 secrets (github-token, assignment) …`, when this command masked any. */
export function maskedNote(): string | undefined {
  const { tally } = secrets;
  if (tally.count === 0) return undefined;
  return `masked ${count(tally.count, 'secret')} (${[...tally.kinds].join(', ')}) — add --reveal to show them as they are`;
}

/** A line about what happened that is not a problem (`kept as history/3`), in the voice of warnings. */
export function note(message: string): void {
  writeTo(2, `sivtr: ${message}\n`);
}

/** A confirmation of what a command did (`copied 3 lines from #2 make`): stderr, no prefix. */
export function confirm(message: string): void {
  writeTo(2, `${message}\n`);
}

/** Writes text to stdout, ending it with a newline unless it is empty or already ends with one. */
export function out(text: string): void {
  const safe = masked(text);
  writeTo(1, safe === '' || safe.endsWith('\n') ? safe : safe + '\n');
}

/** A value as indented JSON on stdout: what `--json` prints. */
export function outJson(value: unknown): void {
  writeTo(1, JSON.stringify(maskedValue(value), null, 2) + '\n');
}

/** Colour when --color=always, or on a terminal without NO_COLOR unless --color=never. */
export function useColor(args: Record<string, unknown> | undefined, stream?: { isTTY?: boolean }): boolean {
  const choice = args?.color === undefined || args.color === null ? 'auto' : String(args.color);
  if (choice === 'always') return true;
  if (choice === 'never') return false;
  return (stream ? stream.isTTY === true : isTerminal(1)) && !process.env.NO_COLOR;
}

export type Styles = Record<'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan', (text: string) => string>;

const SGR = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;

/** SGR styles when `colour`, identity functions when not. */
export function styles(colour: boolean): Styles {
  const make = (code: number) => (colour ? (text: string) => `\x1b[${code}m${text}\x1b[0m` : (text: string) => text);
  return { bold: make(SGR.bold), dim: make(SGR.dim), red: make(SGR.red), green: make(SGR.green), yellow: make(SGR.yellow), cyan: make(SGR.cyan) };
}

/** `2026-05-02 09:04` in local time; `missing` when there is no time, the raw text when it is not one. */
export function localTime(iso: string | null | undefined, missing = '-'): string {
  if (!iso) return missing;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 16);
  return localTimeOf(d);
}

/** localTime of a time already parsed. */
export function localTimeOf(d: Date): string {
  const p = (twoDigits ??= Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0')));
  return `${d.getFullYear()}-${p[d.getMonth() + 1]}-${p[d.getDate()]} ${p[d.getHours()]}:${p[d.getMinutes()]}`;
}

/** `00`…`59`, made once: a listing formats a time a row, and a number made text and padded five times a time was most of it. */
let twoDigits: string[] | undefined;

/** `850ms`, `2.4s`, `3m12s`; empty when unknown. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${ms}ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** A path with the home directory shown as `~`. */
export function shortPath(path: string | undefined, missing = '-'): string {
  return pathShortener()(path, missing);
}

/**
 * shortPath with the home directory looked up once, for a column of paths: each read of
 * `process.env` asks the C library and makes a new string.
 */
export function pathShortener(): (path: string | undefined, missing?: string) => string {
  const home = homeDir(process.env);
  const under = home + '/';
  return (path, missing = '-') => (!path ? missing : home && (path === home || path.startsWith(under)) ? '~' + path.slice(home.length) : path);
}

/**
 * Text on one line, whitespace collapsed, cut to `max` characters with an ellipsis. Masked before
 * the cut: half a token no longer matches its rule, so masking after it would print that half.
 */
export function oneLine(text: string, max = 100): string {
  return cutLine(masked(text), max);
}

/**
 * Each text as oneLine makes it. Most titles hold nothing to mask: one test of all of them
 * together (mayHoldSecret) stands in for masking each when it finds nothing — masking 300 titles
 * one by one was ~6 M instructions of a warm `sessions --global` (callgrind).
 */
export function oneLines(texts: readonly string[], max = 100): string[] {
  return vettedLines(texts, max).lines;
}

/**
 * oneLines, and whether none of the lines holds a hint of a secret, so that outTable need not
 * look in them again. The test is of the texts on one line: whitespace made one space can only
 * make a hint (`key⏎=` becomes `key =`), never break one, and a line cut holds no hint its whole
 * does not, so when it finds none no cut line holds one; when it finds one, each text is masked
 * before it is cut, as oneLine does.
 */
export function vettedLines(texts: readonly string[], max = 100): { lines: string[]; clean: boolean } {
  const flat = texts.map(flatLine);
  if (secrets.reveal || !mayHoldSecret(flat.join('\n'))) return { lines: flat.map((line) => cutFlat(line, max)), clean: true };
  return { lines: texts.map((text) => cutLine(masked(text), max)), clean: false };
}

/**
 * Whitespace runs made one space. Only runs that are not already one space are replaced (`\s+`
 * replaced every space of every title by itself: ~8 K instructions a title, callgrind).
 */
export const flatLine = (text: string): string => text.replace(/\s{2,}|[^\S ]/g, ' ').trim();
/** A flatLine cut to `max` characters with an ellipsis: the line vettedLines makes of a text with no hint of a secret. */
export const cutFlat = (flat: string, max: number): string => (flat.length > max ? flat.slice(0, max - 1) + '…' : flat);

function cutLine(text: string, max: number): string {
  return cutFlat(flatLine(text), max);
}

/** Rows as aligned columns (two spaces apart; the last column is not padded). */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  // Plain loops: a listing's table is thousands of cells, and a closure and an array per row and
  // per column (map, spread into Math.max) cost more than the cells themselves.
  const columns = rows[0]!.length;
  const widths = new Array<number>(columns).fill(0);
  for (const r of rows) {
    for (let i = 0; i < columns; i++) {
      const n = (r[i] ?? '').length;
      if (n > widths[i]!) widths[i] = n;
    }
  }
  let text = '';
  for (const r of rows) {
    const last = r.length - 1;
    let line = '';
    for (let i = 0; i < last; i++) line += (i < columns ? r[i]!.padEnd(widths[i]!) : r[i]!) + '  ';
    text += (last >= 0 ? line + r[last]! : line).trimEnd() + '\n';
  }
  return text;
}

/**
 * out(table(rows)), where every cell of the columns in `clean` (header included) is known to hold
 * no hint of a secret (vettedLines). The table is masked as out() masks it, as a whole, whenever a
 * hint may be in it: in a cell of another column, or across cells of a line (what lies between
 * them is spaces, and only an assignment's hint spans spaces). Else it is written as it is, with
 * no test of the clean columns again: over the titles of 1,000 sessions that test was ~10 M
 * instructions (callgrind).
 */
export function outTable(rows: string[][], clean: ReadonlySet<number>): void {
  const text = table(rows);
  if (secrets.reveal || !tableMayHoldSecret(rows, clean)) writeTo(1, text);
  else out(text);
}

const BLANK = /^[ \t]*$/;
const NO_CLEAN_COLUMN: ReadonlySet<number> = new Set();

/**
 * Whether one line of a table, its cells as printed (a cut cell given whole), may hold a hint of
 * a secret: outTable's test of that line alone. A table none of whose lines holds a hint holds
 * none as a whole: no hint matches a line break, and the cells are tested line by line.
 */
export function lineMayHoldSecret(cells: string[]): boolean {
  return tableMayHoldSecret([cells], NO_CLEAN_COLUMN);
}

function tableMayHoldSecret(rows: string[][], clean: ReadonlySet<number>): boolean {
  const others: string[] = [];
  for (const r of rows) {
    let before: string | undefined; // the last cell of this line with more than spaces and tabs
    for (let i = 0; i < r.length; i++) {
      const cell = r[i]!;
      if (!clean.has(i)) others.push(cell);
      if (cell === '') continue;
      const c = cell.charCodeAt(0);
      if (before !== undefined && (c === 61 || c === 58 || c === 32 || c === 9) && mayHoldSecretAcross(before, cell)) return true; // = : space tab
      if ((c !== 32 && c !== 9) || !BLANK.test(cell)) before = cell;
    }
  }
  return mayHoldSecret(others.join('\n'));
}

/** The line that opens a turn or record in `show` and `import`: `══ claude/3f2a9c1d/2 ══`. */
export function heading(ref: string, complete?: boolean): string {
  return `══ ${ref}${complete === false ? ' (unfinished)' : ''} ══`;
}
