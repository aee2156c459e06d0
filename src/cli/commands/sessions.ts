// sivtr sessions [SOURCE] [--global] [--json] [--limit N] — sessions newest first, from one
// source (terminal or a provider) or from all of them.
import { homedir } from 'node:os';
import { SivtrError, warn } from '../../errors.js';
import type { ListOptions, SessionInfo, Source } from '../../memory/types.js';
import { requireSourceName } from '../source-name.js';
import { allSources, getSource } from '../../memory/sources.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, str } from './common.js';

export const spec: CommandSpec = {
  name: 'sessions',
  usage: '[source]',
  describe: 'list terminal and agent sessions, newest first',
  positionals: [{ name: 'source', describe: 'terminal or a provider (claude, codex, pi, …); all when omitted' }],
  flags: {
    global: { type: 'boolean', alias: 'g', describe: 'every workspace, not just this directory or repository' },
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

function localTime(iso: string | undefined): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '-';
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function shortPath(path: string | undefined): string {
  if (!path) return '-';
  const home = process.env.HOME || homedir();
  return home && (path === home || path.startsWith(home + '/')) ? '~' + path.slice(home.length) : path;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
}

export async function run(args: ParsedArgs): Promise<number> {
  const source = args._[0];
  const limit = args.limit === undefined ? undefined : Number(args.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new SivtrError(`--limit ${str(args.limit)} is not a positive whole number`, 'e.g. --limit 20', 2);
  const opts = listOptions(args);
  if (source !== undefined) requireSourceName(source);
  let sessions: SessionInfo[];
  if (source === undefined) {
    // Captures, each a session of one record, are listed by `sessions history` (or `history`), not among sessions.
    const lists = await Promise.all(allSources().filter((s) => !s.sessionIsUnit).map((s) => sessionsOf(s, opts, limit)));
    sessions = lists.flat().sort(newestFirst);
  } else {
    sessions = await sessionsOf(getSource(source), opts, limit);
  }
  if (limit !== undefined) sessions = sessions.slice(0, limit);

  if (args.json) {
    const out = sessions.map((s) => ({
      ref: `${s.source}/${s.displayId}`,
      source: s.source,
      id: s.id,
      cwd: s.cwd ?? null,
      title: s.title ?? null,
      updated_at: s.updatedAt ?? null,
      turns: s.units ?? null,
      ...(s.parent !== undefined ? { parent: s.parent } : {}),
    }));
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  }
  if (sessions.length === 0) {
    const scope = opts.global || source === 'terminal' ? '' : ` for ${shortPath(opts.cwd)} — add --global to see every workspace`;
    process.stderr.write(`sivtr: no ${source ?? ''}${source ? ' ' : ''}sessions found${scope}\n`);
    return 0;
  }
  const rows = [['ID', 'SOURCE', 'LAST ACTIVITY', 'TURNS', 'CWD', 'TITLE']];
  for (const s of sessions) {
    const title = (s.title ?? '').replace(/\s+/g, ' ').trim();
    // a subagent session follows its parent in the list, marked as run inside it
    rows.push([s.parent !== undefined ? `↳ ${s.displayId}` : s.displayId, s.source, localTime(s.updatedAt), s.units === undefined ? '-' : String(s.units), shortPath(s.cwd), title.length > 70 ? title.slice(0, 69) + '…' : title]);
  }
  process.stdout.write(table(rows));
  return 0;
}
