// sivtr projects [--weekly] [--timezone TZ] [--page N --limit N] [--provider P] [--project-map FILE] [--json]
// — sessions of every agent and terminal merged into projects (same directory, same git
// repository, same origin), or their activity per calendar week.
import { SivtrError } from '../../errors.js';
import { allProviders } from '../../agents/registry.js';
import { agentSummaries } from '../../memory/agent-source.js';
import { groupProjects, page, ProjectResolver, readProjectMap, requireTimeZone, weeklyActivity, type Project, type ProjectSession, type Week } from '../../memory/projects.js';
import { isSourceName } from '../../memory/sources.js';
import { terminalSource } from '../../memory/terminal-source.js';
import { count } from '../../plural.js';
import { localTime, note, outJson, shortPath, table, warn } from '../output.js';
import { requireSourceName } from '../source-name.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, str } from './common.js';

export const spec: CommandSpec = {
  name: 'projects',
  usage: '',
  describe: 'sessions of every agent and terminal merged into projects (directory, git repository, origin)',
  flags: {
    weekly: { type: 'boolean', describe: 'per calendar week: active, new and cumulative projects and sessions per agent' },
    timezone: { type: 'string', describe: 'time zone of the weeks (IANA name; default: this machine’s)' },
    provider: { type: 'string', describe: 'only sessions of this source (claude, codex, terminal, …)' },
    'project-map': { type: 'string', describe: 'JSON file of moved directories: {"/old/dir": "/new/dir", "/dir": "name"}' },
    page: { type: 'number', describe: 'page of the list', default: 1 },
    limit: { type: 'number', alias: 'n', describe: 'items per page', default: 20 },
    json: { type: 'boolean', describe: 'print JSON ({items, total, page, limit, hasMore, nextPage?})' },
  },
  examples: [
    ['sivtr projects', 'projects, most recently active first'],
    ['sivtr projects --weekly --timezone Europe/Berlin', 'activity per week'],
    ['sivtr projects --provider claude --json', 'Claude Code sessions by project, as JSON'],
  ],
};

function positive(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new SivtrError(`--${name} ${str(value)} is not a positive whole number`, `e.g. --${name} 2`, 2);
  return n;
}

/** Every session's presence in a directory: agents by their listing, terminals by their records. */
async function projectSessions(provider: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Promise<ProjectSession[]> {
  const out: ProjectSession[] = [];
  for (const p of allProviders()) {
    if (provider !== undefined && p.name !== provider) continue;
    let summaries;
    try {
      summaries = await agentSummaries(p, env);
    } catch (error) {
      warn(`cannot list ${p.name} sessions: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    for (const s of summaries) {
      if (s.parent !== undefined) continue; // a subagent is part of its parent's session
      const base: ProjectSession = { source: p.name, id: s.id };
      if (s.cwd !== undefined) base.cwd = s.cwd;
      // present from its start to its last activity: active in both weeks, new in the first
      if (s.startedAt !== undefined) out.push({ ...base, at: s.startedAt });
      out.push(s.updatedAt ? { ...base, at: s.updatedAt } : base);
    }
  }
  if (provider === undefined || provider === 'terminal') {
    const opts = { env, cwd, global: true };
    for (const info of await terminalSource.list(opts)) {
      let units;
      try {
        units = (await terminalSource.open(info.id, opts)).units;
      } catch {
        continue;
      }
      if (units.length === 0) {
        out.push({ source: 'terminal', id: info.id, ...(info.updatedAt ? { at: info.updatedAt } : {}) });
        continue;
      }
      for (const u of units) out.push({ source: 'terminal', id: info.id, ...(u.cwd ? { cwd: u.cwd } : {}), ...(u.at ? { at: u.at } : {}) });
    }
  }
  return out;
}

const agentsText = (bySource: Record<string, number>): string =>
  Object.entries(bySource)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');

function projectJson(p: Project): Record<string, unknown> {
  return {
    name: p.name,
    root: p.root || null,
    origin: p.origin ?? null,
    sessions: p.sessions,
    agents: p.bySource,
    dirs: p.dirs,
    first_at: p.firstAt ?? null,
    last_at: p.lastAt ?? null,
    undated: p.undated,
  };
}

const weekCells = (c: Week['projects']): string => `${c.active}/${c.new}/${c.cumulative}`;

function pageNote(total: number, pageNo: number, limit: number, noun: string): void {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pageNo < pages) note(`page ${pageNo} of ${pages} (${count(total, noun)}) — add --page ${pageNo + 1} for more`);
  else if (pageNo > pages) note(`page ${pageNo} is past the end: ${count(total, noun)} make ${count(pages, 'page')}`);
}

export async function run(args: ParsedArgs): Promise<number> {
  const pageNo = positive('page', args.page ?? 1);
  const limit = positive('limit', args.limit ?? 20);
  const provider = str(args.provider);
  if (provider !== undefined && (!isSourceName(provider) || provider === 'history')) requireSourceName(provider === 'history' ? 'history-captures' : provider);
  const timeZone = args.timezone !== undefined ? requireTimeZone(String(args.timezone)) : Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (args.timezone !== undefined && !args.weekly) throw new SivtrError('--timezone is for --weekly', 'e.g. `sivtr projects --weekly --timezone UTC`', 2);
  const map = typeof args['project-map'] === 'string' ? readProjectMap(args['project-map']) : [];
  const opts = listOptions(args);
  const sessions = await projectSessions(provider, opts.env, opts.cwd);
  const resolver = new ProjectResolver(map);

  if (args.weekly) {
    const weekly = weeklyActivity(sessions, resolver, timeZone);
    const newestFirst = [...weekly.weeks].reverse();
    const paged = page(newestFirst, pageNo, limit);
    if (args.json) {
      outJson({ ...paged, timeZone: weekly.timeZone, undated: weekly.undated });
      return 0;
    }
    if (weekly.weeks.length === 0) {
      note(weekly.undated.sessions > 0 ? `${count(weekly.undated.sessions, 'session')} without a date, none with one` : 'no sessions found');
      return 0;
    }
    const agents = Object.keys(weekly.weeks.at(-1)!.agents);
    const rows = [['WEEK', 'PROJECTS a/n/c', 'SESSIONS a/n/c', ...agents.map((a) => a.toUpperCase())]];
    for (const w of paged.items) rows.push([w.week, weekCells(w.projects), weekCells(w.sessions), ...agents.map((a) => (w.agents[a] && w.agents[a].sessions.active > 0 ? String(w.agents[a].sessions.active) : '-'))]);
    process.stdout.write(`weeks from Monday, ${weekly.timeZone}; a/n/c = active, new, cumulative\n`);
    process.stdout.write(table(rows));
    if (weekly.undated.sessions > 0) process.stdout.write(`undated: ${count(weekly.undated.sessions, 'session')} (${agentsText(weekly.undated.bySource)})\n`);
    pageNote(newestFirst.length, pageNo, limit, 'week');
    return 0;
  }

  const projects = groupProjects(sessions, resolver);
  const paged = page(projects, pageNo, limit);
  if (args.json) {
    outJson({ ...paged, items: paged.items.map(projectJson) });
    return 0;
  }
  if (projects.length === 0) {
    note(`no ${provider ?? ''}${provider ? ' ' : ''}sessions found`);
    return 0;
  }
  const rows = [['PROJECT', 'SESSIONS', 'AGENTS', 'LAST ACTIVITY', 'WHERE']];
  for (const p of paged.items) rows.push([p.name, String(p.sessions), agentsText(p.bySource), localTime(p.lastAt), p.origin ?? shortPath(p.root || undefined)]);
  process.stdout.write(table(rows));
  pageNote(projects.length, pageNo, limit, 'project');
  return 0;
}
