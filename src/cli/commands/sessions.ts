// sivtr sessions [SOURCE] [--global] [--json] [--limit N] — sessions newest first, from one
// source (terminal or a provider) or from all of them.
import { SivtrError } from '../../errors.js';
import { home } from '../../files.js';
import type { ListingView, ListOptions, SessionInfo, Source } from '../../memory/types.js';
import { cutFlat, flatLine, lineMayHoldSecret, localTime, localTimeOf, note, outJson, outTable, pathShortener, revealing, shortPath, vettedLines, warn } from '../output.js';
import { writeTo } from '../stdio.js';
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

/** One line of the table (its cells, TITLE cut), and the time it is ordered by. */
type Row = { at: string; id: string; source: string; time: string; turns: string; cwd: string; title: string };

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
    into.push({ at, id: f[k + 1]!, source, time, turns: f[k + 2]!, cwd: f[k + 3]!, title: f[k + 4]! });
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
    into.push({ at: s.updatedAt ?? '', id: cells[0]!, source: cells[1]!, time: cells[2]!, turns: cells[3]!, cwd: cells[4]!, title: cutFlat(title, TITLE_WIDTH) });
  }
  return hint;
}

const newestRowFirst = (a: Row, b: Row): number => (b.at > a.at ? 1 : b.at < a.at ? -1 : 0);

/**
 * The header and the rows as table() aligns them, written out for these six columns: table()'s
 * loop over the cells of each row cost ~15 K instructions a row in a fresh process (callgrind).
 * A line's end is trimmed only when its TITLE is empty: a title is never blank at its end.
 */
function sessionsTable(rows: readonly Row[]): string {
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
  const pad: string[] = ['  '];
  for (let i = 1, most = Math.max(w0, w1, w2, w3, w4); i <= most; i++) pad.push(pad[i - 1] + ' ');
  const line = (id: string, source: string, time: string, turns: string, cwd: string, title: string): string => {
    const text = id + pad[w0 - id.length] + source + pad[w1 - source.length] + time + pad[w2 - time.length] + turns + pad[w3 - turns.length] + cwd + pad[w4 - cwd.length] + title;
    return title === '' ? text.trimEnd() : text;
  };
  let text = line(HEADER[0]!, HEADER[1]!, HEADER[2]!, HEADER[3]!, HEADER[4]!, HEADER[5]!) + '\n';
  for (const r of rows) text += line(r.id, r.source, r.time, r.turns, r.cwd, r.title) + '\n';
  return text;
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
  let hint = false;
  let rows: Row[] = [];
  try {
    for (const s of sources) {
      const got = s.view ? await s.view(opts.env, view) : { sessions: await s.list({ ...opts, limit }) };
      if ('view' in got) {
        hint = viewRows(got.view, s.name, max, rows) || hint;
        // Made now (a listing made or changed): code that warm runs never run, so this run's code
        // is not the one to keep for them (bin/sivtr.js keeps a run's compiled code for later starts).
        if (got.made) (globalThis as { __sivtrAtypicalRun?: () => void }).__sivtrAtypicalRun?.();
      } else hint = liveRows(got.sessions.slice(0, max), rows) || hint;
    }
  } catch (error) {
    if (error instanceof SivtrError) throw error;
    return false;
  }
  if (hint && !revealing()) return false;
  if (source === undefined) rows = rows.sort(newestRowFirst).slice(0, max);
  if (rows.length === 0) return false;
  // The header holds no hint; the lines were tested above.
  writeTo(1, sessionsTable(rows));
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
