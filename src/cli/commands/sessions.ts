// sivtr sessions [SOURCE] [--global] [--json] [--limit N] — sessions newest first, from one
// source (terminal or a provider) or from all of them.
import { SivtrError } from '../../errors.js';
import { asciiJson } from '../../agents/listing-cache.js';
import { home } from '../../files.js';
import { keepPage, keptPage, type PathStamps } from '../../memory/listing-snapshot.js';
import type { ListingView, ListOptions, SessionInfo, Source } from '../../memory/types.js';
import { cutFlat, flatLine, lineMayHoldSecret, localTime, localTimeOf, note, outJson, outTable, pathShortener, revealing, shortPath, vettedLines, warn } from '../output.js';
import { writeBytesTo, writeTo } from '../stdio.js';
import { requireSourceName } from '../source-name.js';
import { allSources, getSource } from '../../memory/sources.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS, str } from './common.js';

export const spec: CommandSpec = {
  name: 'sessions',
  usage: '[source]',
  describe: 'list terminal and agent sessions, newest first',
  positionals: [{ name: 'source', describe: 'terminal or a provider (claude, codex, pi, …); all when omitted' }],
  flags: {
    ...SCOPE_FLAGS,
    json: { type: 'boolean', describe: 'print JSON' },
    limit: { type: 'number', alias: 'n', describe: 'at most N sessions' },
  },
  examples: [
    ['sivtr sessions', 'sessions of this workspace, every source'],
    ['sivtr sessions claude --global', 'every Claude Code session'],
  ],
};

async function sessionsOf(source: Source, opts: ListOptions, limit: number | undefined): Promise<SessionInfo[]> {
  try {
    return (await source.list({ ...opts, limit })).slice(0, limit ?? Infinity);
  } catch (error) {
    if (error instanceof SivtrError) throw error;
    warn(`cannot list ${source.name} sessions: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

const newestFirst = (a: SessionInfo, b: SessionInfo): number => ((b.updatedAt ?? '') > (a.updatedAt ?? '') ? 1 : (b.updatedAt ?? '') < (a.updatedAt ?? '') ? -1 : 0);

/** Sessions of one source, or of every source but captures, newest first. */
export async function listSessions(source: string | undefined, opts: ListOptions, limit: number | undefined): Promise<SessionInfo[]> {
  let sessions: SessionInfo[];
  if (source === undefined) {
    // Captures, each a session of one record, are listed by `sessions history` (or `history`), not among sessions.
    const lists = await Promise.all(allSources().filter((s) => !s.sessionIsUnit).map((s) => sessionsOf(s, opts, limit)));
    sessions = lists.flat().sort(newestFirst);
  } else {
    sessions = await sessionsOf(getSource(source), opts, limit);
  }
  return limit !== undefined ? sessions.slice(0, limit) : sessions;
}

const TITLE_COLUMN: ReadonlySet<number> = new Set([5]);
const NONE: ReadonlySet<number> = new Set();
const TITLE_WIDTH = 70;
const HEADER = ['ID', 'SOURCE', 'LAST ACTIVITY', 'TURNS', 'CWD', 'TITLE'];

/** A subagent session follows its parent in the list, marked as run inside it. */
const idCell = (s: SessionInfo): string => (s.parent !== undefined ? `↳ ${s.displayId}` : s.displayId);
const turnsCell = (s: SessionInfo): string => (s.units === undefined ? '-' : String(s.units));

/** One line of the table (its cells, TITLE cut), the time it is ordered by, and that time in ms (NaN: not one). */
type Row = { at: string; ms: number; id: string; source: string; time: string; turns: string; cwd: string; title: string; late?: true };

// --- the table from kept views -----------------------------------------------------------------
// A source that keeps its listing (Claude Code, Codex, Pi) keeps this table's cells with it: a
// line of every session's time in ms (JSON, null when not a time), then six tab-separated
// fields a session (no cell holds a tab; a listing with one keeps no view): its time as listed,
// ID, TURNS, CWD and cut TITLE cells, and a mark when the line may hold a hint of a secret (its
// cells tested as outTable tests a line, the title whole). LAST ACTIVITY is made at every print
// (it is local time), and its hint is the same in every time zone: a parsed time prints as
// digits, '-', ':' and a space, which no hint matches, and one that is not parsed prints as its
// own text. A warm `--global` table then makes no session object, parses no time and tests no
// cell for secrets: ~35 K instructions a session at 1,000 sessions went to the test alone
// (callgrind). With a hint anywhere, the table is made as before, masked as a whole.

const VIEW_FORMAT = 2;
const FIELDS = 6;

function tableView(): ListingView {
  const short = pathShortener();
  return {
    name: 'table',
    // The CWD cells depend on the home folder (`~`), the TITLE cells on the width.
    key: JSON.stringify([VIEW_FORMAT, home(process.env), TITLE_WIDTH]),
    render(sessions) {
      const times: number[] = [];
      const fields: string[] = [];
      for (const s of sessions) {
        const title = flatLine(s.title ?? '');
        const cells = [idCell(s), s.source, localTime(s.updatedAt), turnsCell(s), short(s.cwd), title];
        const kept = [s.updatedAt ?? '', cells[0]!, cells[3]!, cells[4]!, cutFlat(title, TITLE_WIDTH), lineMayHoldSecret(cells) ? '!' : ''];
        for (const f of kept) if (f.includes('\t')) return undefined;
        // JSON writes NaN (no time, or not one) as null.
        times.push(s.updatedAt ? Date.parse(s.updatedAt) : NaN);
        fields.push(...kept);
      }
      return `${JSON.stringify(times)}\n${fields.join('\t')}`;
    },
  };
}

/** The rows a kept view holds, at most `limit`, and whether one may hold a hint of a secret. */
function viewRows(text: string, source: string, limit: number, into: Row[]): boolean {
  const cut = text.indexOf('\n');
  const times = JSON.parse(text.slice(0, cut)) as (number | null)[];
  if (times.length === 0) return false;
  const f = text.slice(cut + 1).split('\t');
  const n = Math.min(times.length, limit);
  const date = new Date(0);
  let hint = false;
  for (let i = 0, k = 0; i < n; i++, k += FIELDS) {
    const t = times[i];
    const at = f[k]!;
    let time: string;
    if (t === null || t === undefined) time = localTime(at);
    else {
      date.setTime(t);
      time = localTimeOf(date);
    }
    into.push({ at, ms: t ?? NaN, id: f[k + 1]!, source, time, turns: f[k + 2]!, cwd: f[k + 3]!, title: f[k + 4]! });
    if (f[k + 5] !== '') hint = true;
  }
  return hint;
}

/** Rows of sessions listed afresh (a source that keeps no view), and whether one may hold a hint. */
function liveRows(sessions: readonly SessionInfo[], into: Row[]): boolean {
  const short = pathShortener();
  let hint = false;
  for (const s of sessions) {
    const title = flatLine(s.title ?? '');
    const cells = [idCell(s), s.source, localTime(s.updatedAt), turnsCell(s), short(s.cwd), title];
    if (lineMayHoldSecret(cells)) hint = true;
    const ms = s.updatedAt ? Date.parse(s.updatedAt) : NaN;
    into.push({ at: s.updatedAt ?? '', ms, id: cells[0]!, source: cells[1]!, time: cells[2]!, turns: cells[3]!, cwd: cells[4]!, title: cutFlat(title, TITLE_WIDTH) });
  }
  return hint;
}

const newestRowFirst = (a: Row, b: Row): number => (b.at > a.at ? 1 : b.at < a.at ? -1 : 0);

/** The widths of the first five columns: the header's and the rows' longest cells. */
type Widths = [number, number, number, number, number];

function widthsOf(rows: readonly Row[]): Widths {
  let w0 = HEADER[0]!.length;
  let w1 = HEADER[1]!.length;
  let w2 = HEADER[2]!.length;
  let w3 = HEADER[3]!.length;
  let w4 = HEADER[4]!.length;
  for (const r of rows) {
    if (r.id.length > w0) w0 = r.id.length;
    if (r.source.length > w1) w1 = r.source.length;
    if (r.time.length > w2) w2 = r.time.length;
    if (r.turns.length > w3) w3 = r.turns.length;
    if (r.cwd.length > w4) w4 = r.cwd.length;
  }
  return [w0, w1, w2, w3, w4];
}

/**
 * The lines of the table as table() aligns them, written out for these six columns: table()'s
 * loop over the cells of each row cost ~15 K instructions a row in a fresh process (callgrind).
 * A line's end is trimmed only when its TITLE is empty: a title is never blank at its end.
 */
function lineMaker([w0, w1, w2, w3, w4]: Widths): (r: Pick<Row, 'id' | 'source' | 'time' | 'turns' | 'cwd' | 'title'>) => string {
  const pad: string[] = ['  '];
  for (let i = 1, most = Math.max(w0, w1, w2, w3, w4); i <= most; i++) pad.push(pad[i - 1] + ' ');
  return ({ id, source, time, turns, cwd, title }) => {
    const text = id + pad[w0 - id.length] + source + pad[w1 - source.length] + time + pad[w2 - time.length] + turns + pad[w3 - turns.length] + cwd + pad[w4 - cwd.length] + title;
    return title === '' ? text.trimEnd() : text;
  };
}

const headerRow = { id: HEADER[0]!, source: HEADER[1]!, time: HEADER[2]!, turns: HEADER[3]!, cwd: HEADER[4]!, title: HEADER[5]! };

function sessionsTable(rows: readonly Row[], widths: Widths): string {
  const line = lineMaker(widths);
  let text = line(headerRow) + '\n';
  for (const r of rows) text += line(r) + '\n';
  return text;
}

// --- the kept views' lines, kept as a page ------------------------------------------------------
// `sessions --global` with every source and no limit: the lines of the sources that keep views
// (Claude Code, Codex, Pi) are kept sorted and aligned, as the bytes printed, in a page
// (listing-snapshot), checked by the stamps of those views. A warm run checks them, writes each
// line's local time into its LAST ACTIVITY cell, lists the other sources as before (the terminal
// logs grow with every recorded command; an agent that is not installed finds nothing) and splices
// their lines in where the sort puts them. Reading the views and making a row, a time and a line
// for each of 1,000 sessions was ~45 M instructions of a warm run (callgrind).

const PAGE = 'sessions-global';
const PAGE_FORMAT = 2;
/** `YYYY-MM-DD HH:MM`: every LAST ACTIVITY cell of a parsed time in the years 1000–9999. */
const TIME_CELL = 16;

/** The page's key: its format, the view's key and each kept source's (its listing's inputs). */
function pageKey(kept: readonly (readonly [Source, string])[], viewKey: string): string {
  return JSON.stringify([PAGE_FORMAT, viewKey, kept.map(([s, key]) => [s.name, key])]);
}

/**
 * What a page holds before its lines, as one JSON line: the widths of the columns (`w`: as the
 * run that made it printed them, with the other sources' rows; `k`: of the header and the page's
 * own lines), each line's time as listed (the sort key) and where the line starts, and for each
 * LAST ACTIVITY cell its time in ms, its byte offset and the zone's offset then (Date's
 * getTimezoneOffset, minutes), to tell whether it is still the local time.
 */
type PageMeta = { w: Widths; k: Widths; at: string[]; line: number[]; time: number[] };

/**
 * Each LAST ACTIVITY cell of the page as local time now: a cell is written again only where the
 * zone's offset from UTC at its time is not the one the page was made with (the same ms at the
 * same offset is the same local time). False when a cell would not be TIME_CELL characters.
 * Formatting and writing every cell afresh was ~24 M instructions at 1,000 sessions (callgrind):
 * V8 optimised the loop on another thread.
 */
function localTimeCells(bytes: Buffer, body: number, time: readonly number[]): boolean {
  const date = new Date(0);
  for (let i = 0; i < time.length; i += 3) {
    date.setTime(time[i]!);
    if (date.getTimezoneOffset() === time[i + 2]) continue;
    const y = date.getFullYear();
    if (!(y >= 1000 && y <= 9999) || bytes.write(localTimeOf(date), body + time[i + 1]!, 'latin1') !== TIME_CELL) return false;
  }
  return true;
}

/** A page of the kept sources' lines (sorted), aligned as the whole table `w` is; undefined when a time cell is not TIME_CELL long. */
function makePage(rows: readonly Row[], w: Widths): Buffer | undefined {
  const line = lineMaker(w);
  const meta: PageMeta = { w, k: widthsOf(rows), at: [], line: [], time: [] };
  const date = new Date(0);
  const lines: string[] = [];
  let bytes = 0;
  for (const r of rows) {
    meta.at.push(r.at);
    meta.line.push(bytes);
    if (!Number.isNaN(r.ms)) {
      if (r.time.length !== TIME_CELL) return undefined;
      date.setTime(r.ms);
      meta.time.push(r.ms, bytes + Buffer.byteLength(r.id) + (w[0] - r.id.length + 2) + Buffer.byteLength(r.source) + (w[1] - r.source.length + 2), date.getTimezoneOffset());
    }
    const text = line(r) + '\n';
    lines.push(text);
    bytes += Buffer.byteLength(text);
  }
  return Buffer.concat([Buffer.from(`${asciiJson(meta)}\n`, 'latin1'), Buffer.from(lines.join(''))]);
}

/**
 * The table from a kept page and the other sources' rows (listed now), when the page is for this
 * key and still holds, and those rows hold no hint of a secret and make the columns as wide as
 * the page's maker printed them: true, printed. Undefined, having printed nothing, otherwise.
 */
async function printPage(key: string, others: readonly Source[], late: ReadonlySet<Source>, opts: ListOptions, view: ListingView): Promise<true | undefined> {
  const kept = keptPage(PAGE, opts.env, key);
  if (!kept) return undefined;
  const { bytes } = kept;
  const metaEnd = bytes.indexOf(10, kept.at);
  if (metaEnd < 0) return undefined;
  let meta: PageMeta;
  try {
    meta = JSON.parse(bytes.toString('latin1', kept.at, metaEnd)) as PageMeta;
  } catch {
    return undefined;
  }
  if (!Array.isArray(meta.w) || !Array.isArray(meta.k) || !Array.isArray(meta.at) || !Array.isArray(meta.line) || !Array.isArray(meta.time)) return undefined;
  const rows: Row[] = [];
  try {
    for (const s of others) {
      const got = s.view ? await s.view(opts.env, view) : { sessions: await s.list({ ...opts, limit: undefined }) };
      const from = rows.length;
      if ('view' in got ? viewRows(got.view, s.name, Infinity, rows) : liveRows(got.sessions, rows)) return undefined;
      if (late.has(s)) for (let i = from; i < rows.length; i++) rows[i]!.late = true;
    }
  } catch {
    return undefined; // listed again the usual way, which tells what failed
  }
  const fit = widthsOf(rows);
  for (let c = 0; c < 5; c++) if (Math.max(fit[c]!, meta.k[c]!) !== meta.w[c]) return undefined;
  if (rows.length + meta.at.length === 0) return undefined;
  const body = metaEnd + 1;
  if (!localTimeCells(bytes, body, meta.time)) return undefined;
  // Where the sort over every row puts them: after the page's rows of a later time, and of the
  // same time when the row's source comes after the page's sources (late) rather than before.
  const line = lineMaker(meta.w);
  const parts: Buffer[] = [Buffer.from(line(headerRow) + '\n')];
  let from = 0;
  for (const r of rows.sort(newestRowFirst)) {
    let to = from;
    if (r.late) while (to < meta.at.length && meta.at[to]! >= r.at) to++;
    else while (to < meta.at.length && meta.at[to]! > r.at) to++;
    if (to > from) parts.push(bytes.subarray(body + meta.line[from]!, to < meta.at.length ? body + meta.line[to]! : bytes.length));
    parts.push(Buffer.from(line(r) + '\n'));
    from = to;
  }
  if (from < meta.at.length) parts.push(bytes.subarray(body + meta.line[from]!));
  // The header holds no hint; the page's lines were tested when it was made, the others' above.
  writeBytesTo(1, Buffer.concat(parts));
  return true;
}

/**
 * `sessions --global` as a table, from the sources' kept views where they have them: the same
 * rows in the same order as listSessions gives (each source's first `limit`, then all newest
 * first, stably). False, having printed nothing, when a line may hold a hint of a secret or a
 * source failed: the caller then lists as before, masking and warning as it does.
 */
async function printFromViews(source: string | undefined, opts: ListOptions, limit: number | undefined): Promise<boolean> {
  const sources = source === undefined ? allSources().filter((s) => !s.sessionIsUnit) : [getSource(source)];
  const view = tableView();
  const max = limit ?? Infinity;
  const keyed: [Source, string][] = [];
  if (source === undefined && limit === undefined) {
    for (const s of sources) {
      const key = s.view && s.pageKey?.(opts.env);
      if (key) keyed.push([s, key]);
    }
  }
  const paged = keyed.map(([s]) => s);
  // The page's sources are next to each other in the sources' order: every other source's rows
  // then sort before the page's rows of the same time or after all of them.
  const first = sources.findIndex((s) => paged.includes(s));
  const splice = paged.length > 0 && sources[first + paged.length - 1] === paged.at(-1) ? pageKey(keyed, view.key) : undefined;
  const late = new Set(sources.slice(first + paged.length));
  if (splice !== undefined && (await printPage(splice, sources.filter((s) => !paged.includes(s)), late, opts, view))) return true;
  let hint = false;
  let rows: Row[] = [];
  const pageRows: Row[] = [];
  const paths: string[] = [];
  const numbers: number[] = [];
  let stamped = splice !== undefined;
  try {
    for (const s of sources) {
      const got = s.view ? await s.view(opts.env, view) : { sessions: await s.list({ ...opts, limit }) };
      const from = rows.length;
      let held: boolean;
      if ('view' in got) {
        held = viewRows(got.view, s.name, max, rows);
        // Made now (a listing made or changed): code that warm runs never run, so this run's code
        // is not the one to keep for them (bin/sivtr.js keeps a run's compiled code for later starts).
        if (got.made) (globalThis as { __sivtrAtypicalRun?: () => void }).__sivtrAtypicalRun?.();
      } else held = liveRows(got.sessions.slice(0, max), rows);
      hint ||= held;
      if (stamped && paged.includes(s)) {
        // A page holds no line with a hint of a secret (such a table is masked as a whole).
        if (got.stamps && !held) {
          paths.push(...got.stamps.paths);
          numbers.push(...got.stamps.numbers);
          for (let i = from; i < rows.length; i++) pageRows.push(rows[i]!);
        } else stamped = false;
      }
    }
  } catch (error) {
    if (error instanceof SivtrError) throw error;
    return false;
  }
  if (hint && !revealing()) return false;
  if (source === undefined) rows = rows.sort(newestRowFirst).slice(0, max);
  if (rows.length === 0) return false;
  const widths = widthsOf(rows);
  // The header holds no hint; the lines were tested above.
  writeTo(1, sessionsTable(rows, widths));
  if (stamped && splice !== undefined) {
    const page = makePage(pageRows.sort(newestRowFirst), widths);
    const stamps: PathStamps = { paths, numbers };
    if (page) keepPage(PAGE, opts.env, splice, stamps, page);
  }
  return true;
}

export async function run(args: ParsedArgs): Promise<number> {
  const source = args._[0];
  const limit = args.limit === undefined ? undefined : Number(args.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new SivtrError(`--limit ${str(args.limit)} is not a positive whole number`, 'e.g. --limit 20', 2);
  const opts = listOptions(args);
  if (source !== undefined) requireSourceName(source);
  if (!args.json && opts.global && (await printFromViews(source, opts, limit))) return 0;
  const sessions = await listSessions(source, opts, limit);

  if (args.json) {
    const out = sessions.map((s) => ({
      ref: `${s.source}/${s.id}`,
      source: s.source,
      id: s.id,
      cwd: s.cwd ?? null,
      title: s.title ?? null,
      updated_at: s.updatedAt ?? null,
      turns: s.units ?? null,
      ...(s.parent !== undefined ? { parent: s.parent } : {}),
    }));
    outJson(out);
    return 0;
  }
  if (sessions.length === 0) {
    const scope = opts.global || source === 'terminal' ? '' : ` for ${shortPath(opts.scope ?? opts.cwd)} — add --global to see every workspace`;
    note(`no ${source ?? ''}${source ? ' ' : ''}sessions found${scope}`);
    return 0;
  }
  const rows = [HEADER];
  const titles = vettedLines(sessions.map((s) => s.title ?? ''), TITLE_WIDTH);
  const short = pathShortener();
  sessions.forEach((s, i) => {
    rows.push([idCell(s), s.source, localTime(s.updatedAt), turnsCell(s), short(s.cwd), titles.lines[i]!]);
  });
  outTable(rows, titles.clean ? TITLE_COLUMN : NONE);
  return 0;
}
