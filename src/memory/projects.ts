// Projects: sessions of every agent and terminal merged by what they worked on. Two sessions
// share a project when they ran in the same directory, in the same git repository (any
// subdirectory or worktree: one common git dir), or in clones of the same `origin` (SSH and
// HTTPS spellings are one name). A fork with another origin, or a same-named folder elsewhere,
// is another project. A mapping file merges directories that moved (see readProjectMap).
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { gitRepository } from '../agents/workspace.js';
import { SivtrError } from '../errors.js';

/** One session's presence in one directory (a terminal session may be in several). */
export type ProjectSession = { source: string; id: string; cwd?: string; at?: string };

export type ProjectIdentity = {
  key: string;
  name: string;
  /** The main working tree, or the directory itself outside git. */
  root: string;
  origin?: string;
};

export type Project = ProjectIdentity & {
  sessions: number;
  bySource: Record<string, number>;
  dirs: string[];
  firstAt?: string;
  lastAt?: string;
  /** Sessions without a time of their own. */
  undated: number;
};

/**
 * The mapping file: a JSON object whose keys are directories (a key covers its
 * subdirectories). A value that is an absolute path says where that directory lives now: a
 * session recorded under the key is read as if it ran at the new place. Any other value is a
 * project name: every session under the key belongs to that project.
 *   { "/home/me/old-app": "/home/me/src/app", "/tmp/scratch": "scratch" }
 */
export type ProjectMap = { from: string; to: string; isName: boolean }[];

export function readProjectMap(path: string): ProjectMap {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SivtrError(`cannot read --project-map ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'give a JSON file like {"/old/dir": "/new/dir"}', 2);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SivtrError(`--project-map ${path} is not JSON: ${(error as Error).message}`, 'write it as {"/old/dir": "/new/dir", "/other/dir": "project name"}', 2);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SivtrError(`--project-map ${path} must be a JSON object`, 'e.g. {"/old/dir": "/new/dir"}', 2);
  const map: ProjectMap = [];
  for (const [from, to] of Object.entries(value as Record<string, unknown>)) {
    if (typeof to !== 'string' || to === '' || !isAbsolute(from)) throw new SivtrError(`--project-map ${path}: "${from}" must be an absolute directory mapped to a directory or a name`, 'e.g. {"/old/dir": "/new/dir"}', 2);
    map.push({ from: resolve(from), to: isAbsolute(to) ? resolve(to) : to, isName: !isAbsolute(to) });
  }
  // the longest key wins: a mapping for a subdirectory overrides its parent's
  return map.sort((a, b) => b.from.length - a.from.length);
}

const under = (dir: string, root: string): boolean => dir === root || dir.startsWith(root.endsWith('/') ? root : root + '/');

/** Names project identities, one lookup per directory. */
export class ProjectResolver {
  private readonly cache = new Map<string, ProjectIdentity>();
  constructor(private readonly map: ProjectMap = []) {}

  of(cwd: string): ProjectIdentity {
    const dir = resolve(cwd);
    const cached = this.cache.get(dir);
    if (cached) return cached;
    const id = this.compute(dir);
    this.cache.set(dir, id);
    return id;
  }

  private compute(dir: string): ProjectIdentity {
    let at = dir;
    const rule = this.map.find((m) => under(dir, m.from));
    if (rule?.isName) return { key: `name:${rule.to}`, name: rule.to, root: rule.from };
    if (rule) at = rule.to + dir.slice(rule.from.length);
    const repo = gitRepository(at);
    if (repo?.origin !== undefined) return { key: `origin:${repo.origin.toLowerCase()}`, name: basename(repo.origin), root: repo.root, origin: repo.origin };
    if (repo) return { key: `git:${repo.commonDir}`, name: basename(repo.root), root: repo.root };
    return { key: `dir:${at}`, name: basename(at) || at, root: at };
  }
}

const NO_DIR: ProjectIdentity = { key: 'none', name: '(no directory)', root: '' };

/** Sessions grouped into projects, the most recently active first. */
export function groupProjects(sessions: readonly ProjectSession[], resolver: ProjectResolver): Project[] {
  const byKey = new Map<string, { project: Project; seen: Set<string> }>();
  for (const s of sessions) {
    const id = s.cwd !== undefined && s.cwd !== '' ? resolver.of(s.cwd) : NO_DIR;
    let entry = byKey.get(id.key);
    if (!entry) {
      entry = { project: { ...id, sessions: 0, bySource: {}, dirs: [], undated: 0 }, seen: new Set() };
      byKey.set(id.key, entry);
    }
    const p = entry.project;
    const sessionKey = `${s.source}/${s.id}`;
    if (!entry.seen.has(sessionKey)) {
      entry.seen.add(sessionKey);
      p.sessions++;
      p.bySource[s.source] = (p.bySource[s.source] ?? 0) + 1;
      if (s.at === undefined) p.undated++;
    }
    if (s.cwd !== undefined && s.cwd !== '' && !p.dirs.includes(resolve(s.cwd))) p.dirs.push(resolve(s.cwd));
    if (s.at !== undefined) {
      if (p.firstAt === undefined || s.at < p.firstAt) p.firstAt = s.at;
      if (p.lastAt === undefined || s.at > p.lastAt) p.lastAt = s.at;
    }
  }
  return [...byKey.values()].map((e) => e.project).sort((a, b) => ((b.lastAt ?? '') > (a.lastAt ?? '') ? 1 : (b.lastAt ?? '') < (a.lastAt ?? '') ? -1 : a.name < b.name ? -1 : 1));
}

export type WeekCounts = { active: number; new: number; cumulative: number };
export type Week = {
  /** The Monday that starts the week, as a date in the chosen time zone. */
  week: string;
  projects: WeekCounts;
  sessions: WeekCounts;
  agents: Record<string, { projects: WeekCounts; sessions: WeekCounts }>;
};
export type Weekly = { weeks: Week[]; undated: { sessions: number; bySource: Record<string, number> }; timeZone: string };

/** A time zone Intl knows, or a usage error. */
export function requireTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new SivtrError(`unknown time zone "${tz}"`, 'use an IANA name such as UTC, Europe/Berlin or America/New_York', 2);
  }
}

const DAY = 86_400_000;

/** The Monday of the calendar week holding `iso` in `timeZone`, as YYYY-MM-DD. */
export function weekOf(iso: string, timeZone: string, fmt = dateFormat(timeZone)): string | undefined {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const parts = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const day = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
  return new Date(monday).toISOString().slice(0, 10);
}

const dateFormat = (timeZone: string): Intl.DateTimeFormat => new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * Per calendar week (Monday first) in `timeZone`, from the first dated session to the last,
 * empty weeks included: projects and sessions active that week, new that week, and seen so
 * far, overall and per agent. Sessions without a time are counted apart.
 */
export function weeklyActivity(sessions: readonly ProjectSession[], resolver: ProjectResolver, timeZone: string): Weekly {
  const fmt = dateFormat(timeZone);
  const undated = { sessions: 0, bySource: {} as Record<string, number> };
  type Item = { week: string; source: string; session: string; project: string };
  const items: Item[] = [];
  const seenUndated = new Set<string>();
  for (const s of sessions) {
    const week = s.at === undefined ? undefined : weekOf(s.at, timeZone, fmt);
    if (week === undefined) {
      const k = `${s.source}/${s.id}`;
      if (!seenUndated.has(k)) {
        seenUndated.add(k);
        undated.sessions++;
        undated.bySource[s.source] = (undated.bySource[s.source] ?? 0) + 1;
      }
      continue;
    }
    items.push({ week, source: s.source, session: `${s.source}/${s.id}`, project: s.cwd ? resolver.of(s.cwd).key : NO_DIR.key });
  }
  if (items.length === 0) return { weeks: [], undated, timeZone };
  const weeksSorted = [...new Set(items.map((i) => i.week))].sort();
  const allWeeks: string[] = [];
  for (let t = Date.parse(weeksSorted[0]!); t <= Date.parse(weeksSorted.at(-1)!); t += 7 * DAY) allWeeks.push(new Date(t).toISOString().slice(0, 10));
  const byWeek = new Map<string, Item[]>();
  for (const i of items) byWeek.set(i.week, [...(byWeek.get(i.week) ?? []), i]);
  const sources = [...new Set(items.map((i) => i.source))].sort();
  // what has been seen before the current week, overall ('') and per agent
  const seenProjects = new Map<string, Set<string>>([['', new Set()]]);
  const seenSessions = new Map<string, Set<string>>([['', new Set()]]);
  for (const s of sources) {
    seenProjects.set(s, new Set());
    seenSessions.set(s, new Set());
  }
  const weeks: Week[] = [];
  for (const week of allWeeks) {
    const these = byWeek.get(week) ?? [];
    const count = (source: string): { projects: WeekCounts; sessions: WeekCounts } => {
      const mine = source === '' ? these : these.filter((i) => i.source === source);
      const projects = new Set(mine.map((i) => i.project));
      const sessionsNow = new Set(mine.map((i) => i.session));
      const pSeen = seenProjects.get(source)!;
      const sSeen = seenSessions.get(source)!;
      const newProjects = [...projects].filter((p) => !pSeen.has(p)).length;
      const newSessions = [...sessionsNow].filter((x) => !sSeen.has(x)).length;
      for (const p of projects) pSeen.add(p);
      for (const x of sessionsNow) sSeen.add(x);
      return { projects: { active: projects.size, new: newProjects, cumulative: pSeen.size }, sessions: { active: sessionsNow.size, new: newSessions, cumulative: sSeen.size } };
    };
    const overall = count('');
    const agents: Week['agents'] = {};
    for (const s of sources) agents[s] = count(s);
    weeks.push({ week, projects: overall.projects, sessions: overall.sessions, agents });
  }
  return { weeks, undated, timeZone };
}

/** One page of a list, in the shape every paged `--json` prints. */
export function page<T>(all: readonly T[], pageNo: number, limit: number): { items: T[]; total: number; page: number; limit: number; hasMore: boolean; nextPage?: number } {
  const start = (pageNo - 1) * limit;
  const items = all.slice(start, start + limit);
  const hasMore = start + limit < all.length;
  return { items, total: all.length, page: pageNo, limit, hasMore, ...(hasMore ? { nextPage: pageNo + 1 } : {}) };
}
