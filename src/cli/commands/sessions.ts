// sivtr sessions [SOURCE] [--global] [--json] [--limit N] — sessions newest first, from one
// source (terminal or a provider) or from all of them.
import { SivtrError } from '../../errors.js';
import type { ListOptions, SessionInfo, Source } from '../../memory/types.js';
import { localTime, note, outJson, outTable, pathShortener, shortPath, vettedLines, warn } from '../output.js';
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

export async function run(args: ParsedArgs): Promise<number> {
  const source = args._[0];
  const limit = args.limit === undefined ? undefined : Number(args.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new SivtrError(`--limit ${str(args.limit)} is not a positive whole number`, 'e.g. --limit 20', 2);
  const opts = listOptions(args);
  if (source !== undefined) requireSourceName(source);
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
  const rows = [['ID', 'SOURCE', 'LAST ACTIVITY', 'TURNS', 'CWD', 'TITLE']];
  const titles = vettedLines(sessions.map((s) => s.title ?? ''), 70);
  const short = pathShortener();
  sessions.forEach((s, i) => {
    // a subagent session follows its parent in the list, marked as run inside it
    rows.push([s.parent !== undefined ? `↳ ${s.displayId}` : s.displayId, s.source, localTime(s.updatedAt), s.units === undefined ? '-' : String(s.units), short(s.cwd), titles.lines[i]!]);
  });
  outTable(rows, titles.clean ? TITLE_COLUMN : NONE);
  return 0;
}
