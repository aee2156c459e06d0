// A warm `sessions` answers from each provider's kept listing (src/memory/listing-snapshot.ts)
// only when nothing it was made from changed: a session that is new, appended, rewritten (even
// to the same size) or deleted, a subagent whose folder appears inside a session's folder, and a
// title set in Codex's session index all show at once. The folders are set an hour back first: a
// listing is not kept while a folder of it has only just changed.
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from '../agents/helpers.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const PROJECTS = ['.claude', 'projects'];
const MAIN = '7f3e0c2a-5b1d-4c8e-9a61-0d2f4b6c8e10';
const ELSEWHERE = '4c5d6e7f-8091-4a2b-9c3d-4e5f60718293';
const CODEX_TITLED = '0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60';

function home(): AgentHome {
  const h = agentHome(['claude', 'codex', 'pi']);
  cleanups.push(h.cleanup);
  return h;
}

/** Everything under the agents' homes written in the last minute (folders, the Codex index) set an hour back. */
function settle(h: AgentHome): void {
  const past = new Date(Date.now() - 3_600_000);
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (statSync(path).mtimeMs > Date.now() - 60_000) utimesSync(path, past, past);
    }
    utimesSync(dir, past, past);
  };
  for (const d of ['.claude', '.codex', '.pi']) walk(join(h.home, d));
}

const kept = (h: AgentHome, provider: string): string => join(h.home, 'data', 'cache', `list-${provider}.json`);

/** A settled home whose listing was just kept, and what it listed. */
function keptHome(): { h: AgentHome; first: ReturnType<typeof listJson> } {
  const h = home();
  settle(h);
  const first = listJson(h, ['--global']);
  for (const p of ['claude', 'codex', 'pi']) expect(existsSync(kept(h, p))).toBe(true);
  return { h, first };
}

describe('sessions from kept listings', () => {
  it('prints what a fresh listing prints, in text and --json, global or not', () => {
    const { h, first } = keptHome();
    const table = h.run(['sessions', '--global']).stdout;
    const here = listJson(h, [], join(h.work, 'app'));
    expect(listJson(h, ['--global'])).toEqual(first);
    for (const p of ['claude', 'codex', 'pi']) rmSync(kept(h, p));
    expect(h.run(['sessions', '--global']).stdout).toBe(table);
    expect(listJson(h, [], join(h.work, 'app'))).toEqual(here);
    expect(here.length).toBeGreaterThan(0);
    expect(here.length).toBeLessThan(first.length);
  });

  it('keeps no listing while a folder of it has only just changed', () => {
    // A session created within the same tick of the file system's clock leaves its folder's mtime as it was.
    const h = home();
    listJson(h, ['--global']);
    for (const p of ['claude', 'codex', 'pi']) expect(existsSync(kept(h, p))).toBe(false);
  });

  it('answers from the kept listing when nothing changed', () => {
    // What is kept is what is printed: a title changed inside the kept file shows, so the cases
    // below are answered by the check, not by a listing made afresh every time.
    const { h } = keptHome();
    const file = kept(h, 'claude');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"title":"[^"]*"/, '"title":"as kept"'));
    expect(listJson(h, ['claude', '--global']).map((s) => s.title)).toContain('as kept');
  });

  it('shows a new session at once', () => {
    const { h, first } = keptHome();
    const dir = join(h.home, ...PROJECTS, '-home-ana-other');
    const copy = 'aaaaaaaa-1111-4222-8333-444455556666';
    const source = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    cpSync(join(dir, source), join(dir, `${copy}.jsonl`));
    const ids = listJson(h, ['--global']).map((s) => s.id);
    expect(ids).toContain(copy);
    expect(ids.length).toBe(first.length + 1);
  });

  it('shows an appended session at once', () => {
    const { h } = keptHome();
    const before = listJson(h, ['claude', '--global']).find((s) => s.id === ELSEWHERE)!;
    const file = join(h.home, ...PROJECTS, '-home-ana-elsewhere', `${ELSEWHERE}.jsonl`);
    const later = '2030-01-01T00:00:00.000Z';
    const last = [...readFileSync(file, 'utf8').matchAll(/"uuid":"([^"]+)"/g)].at(-1)![1];
    const rec = { type: 'user', uuid: 'zz1', parentUuid: last, sessionId: ELSEWHERE, cwd: before.cwd, timestamp: later, message: { role: 'user', content: 'one more question' } };
    appendFileSync(file, JSON.stringify(rec) + '\n');
    const after = listJson(h, ['claude', '--global']).find((s) => s.id === ELSEWHERE)!;
    expect(after.updated_at).toBe(later);
    expect(after.turns).toBe((before.turns ?? 0) + 1);
  });

  it('shows a session rewritten to the same size at once', () => {
    const { h } = keptHome();
    const dir = join(h.home, '.pi', 'agent', 'sessions');
    const folder = readdirSync(dir)[0]!;
    const name = readdirSync(join(dir, folder))[0]!;
    const file = join(dir, folder, name);
    const before = listJson(h, ['pi', '--global']);
    const text = readFileSync(file, 'utf8');
    const title = before.map((s) => s.title ?? '').find((t) => t.length > 4 && text.includes(t))!;
    const swapped = title.slice(1) + title[0];
    writeFileSync(file, text.replace(title, swapped));
    expect(statSync(file).size).toBe(Buffer.byteLength(text));
    expect(listJson(h, ['pi', '--global']).map((s) => s.title)).toContain(swapped);
  });

  it('shows a file that held no session yet once it holds one', () => {
    // Such a file lists nothing, so its stamp is kept apart from the sessions' own.
    const h = home();
    const dir = join(h.home, ...PROJECTS, '-home-ana-other');
    const empty = 'bbbbbbbb-1111-4222-8333-444455556666';
    writeFileSync(join(dir, `${empty}.jsonl`), '');
    settle(h);
    expect(listJson(h, ['claude', '--global']).map((s) => s.id)).not.toContain(empty);
    expect(existsSync(kept(h, 'claude'))).toBe(true);
    const source = readdirSync(dir).find((f) => f.endsWith('.jsonl') && !f.startsWith(empty))!;
    writeFileSync(join(dir, `${empty}.jsonl`), readFileSync(join(dir, source)));
    expect(listJson(h, ['claude', '--global']).map((s) => s.id)).toContain(empty);
  });

  it('drops a deleted session at once', () => {
    const { h, first } = keptHome();
    rmSync(join(h.home, ...PROJECTS, '-home-ana-elsewhere', `${ELSEWHERE}.jsonl`));
    const ids = listJson(h, ['--global']).map((s) => s.id);
    expect(first.map((s) => s.id)).toContain(ELSEWHERE);
    expect(ids).not.toContain(ELSEWHERE);
  });

  it('shows a subagent whose folder appears inside a session folder that was already there', () => {
    // The session folder held no session file, so no path to one passes through it: only a
    // check of every folder below the provider's tree sees it change.
    const h = home();
    const session = join(h.home, ...PROJECTS, '-home-ana-elsewhere', ELSEWHERE);
    mkdirSync(join(session, 'tool-results'), { recursive: true });
    settle(h);
    expect(listJson(h, ['claude', '--global']).map((s) => s.id)).not.toContain('agent-77aa88bb');
    expect(existsSync(kept(h, 'claude'))).toBe(true);
    const sub = join(h.home, ...PROJECTS, '-home-ana-app', MAIN, 'subagents', 'agent-9c1d2e3f.jsonl');
    mkdirSync(join(session, 'subagents'));
    cpSync(sub, join(session, 'subagents', 'agent-77aa88bb.jsonl'));
    const listed = listJson(h, ['claude', '--global']).find((s) => s.id === 'agent-77aa88bb');
    expect(listed).toMatchObject({ parent: ELSEWHERE });
  });

  it('shows a title set in the Codex session index at once', () => {
    const { h, first } = keptHome();
    expect(first.find((s) => s.id === CODEX_TITLED)?.title).toBe('health and metrics routes');
    appendFileSync(join(h.home, '.codex', 'session_index.jsonl'), JSON.stringify({ id: CODEX_TITLED, thread_name: 'renamed in codex', updated_at: '2026-03-10T10:00:00Z' }) + '\n');
    expect(listJson(h, ['codex', '--global']).find((s) => s.id === CODEX_TITLED)?.title).toBe('renamed in codex');
  });
});

// `sessions --global` prints its table from a view kept beside each listing (the cells of every
// session, see src/cli/commands/sessions.ts). Each change below must show in the table at once:
// the table is compared with the one made after every kept file is deleted.
const viewFile = (h: AgentHome, provider: string): string => join(h.home, 'data', 'cache', `view-${provider}-table.txt`);

const pageFile = (h: AgentHome): string => join(h.home, 'data', 'cache', 'page-sessions-global.txt');

/** The table as a listing made afresh prints it (the kept listings, views and page deleted first). */
function freshTable(h: AgentHome, args: string[], env?: Record<string, string | undefined>): string {
  for (const p of ['claude', 'codex', 'pi']) {
    rmSync(kept(h, p), { force: true });
    rmSync(viewFile(h, p), { force: true });
  }
  rmSync(pageFile(h), { force: true });
  const r = h.run(['sessions', ...args], { env });
  expect(r.code).toBe(0);
  return r.stdout;
}

/** The table printed now, from whatever is kept. */
function table(h: AgentHome, args: string[] = ['--global'], env?: Record<string, string | undefined>): string {
  const r = h.run(['sessions', ...args], { env });
  expect(r.code).toBe(0);
  return r.stdout;
}

/** A settled home whose views were just kept. */
function viewedHome(): AgentHome {
  const { h } = keptHome();
  table(h);
  for (const p of ['claude', 'codex', 'pi']) expect(existsSync(viewFile(h, p))).toBe(true);
  return h;
}

describe('the sessions table from kept views', () => {
  it('answers from the kept view when nothing changed, the same table as a fresh listing', () => {
    const h = viewedHome();
    const before = table(h);
    rmSync(pageFile(h));
    const file = viewFile(h, 'claude');
    const text = readFileSync(file, 'utf8');
    // After the JSON line of times: six tab-separated fields a session, the cut title fifth.
    const title = text.slice(text.lastIndexOf('\n') + 1).split('\t')[4]!;
    expect(title.length).toBeGreaterThan(3);
    writeFileSync(file, text.replace(`\t${title}\t`, '\tas kept in the view\t'));
    expect(table(h)).toContain('as kept in the view');
    expect(table(h, ['claude', '--global'])).toContain('as kept in the view');
    expect(freshTable(h, ['--global'])).toBe(before);
  });

  it('shows a new, an appended, a rewritten, a renamed and a deleted session at once', () => {
    const h = viewedHome();
    const dir = join(h.home, ...PROJECTS, '-home-ana-other');
    const source = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    const changes: (() => void)[] = [
      () => cpSync(join(dir, source), join(dir, 'aaaaaaaa-1111-4222-8333-444455556666.jsonl')),
      () => appendFileSync(join(h.home, ...PROJECTS, '-home-ana-elsewhere', `${ELSEWHERE}.jsonl`), JSON.stringify({ type: 'user', uuid: 'zz9', sessionId: ELSEWHERE, timestamp: '2030-01-01T00:00:00.000Z', message: { role: 'user', content: 'later' } }) + '\n'),
      () => {
        const pi = join(h.home, '.pi', 'agent', 'sessions');
        const folder = readdirSync(pi)[0]!;
        const file = join(pi, folder, readdirSync(join(pi, folder))[0]!);
        const text = readFileSync(file, 'utf8');
        const at = text.indexOf('"content"');
        writeFileSync(file, text.slice(0, at) + text.slice(at).replace(/[a-z]{5}/, (w) => w.split('').reverse().join('')));
        expect(statSync(file).size).toBe(Buffer.byteLength(text));
      },
      () => cpSync(join(dir, 'aaaaaaaa-1111-4222-8333-444455556666.jsonl'), join(dir, 'cccccccc-1111-4222-8333-444455556666.jsonl')),
      () => rmSync(join(dir, 'aaaaaaaa-1111-4222-8333-444455556666.jsonl')),
      () => appendFileSync(join(h.home, '.codex', 'session_index.jsonl'), JSON.stringify({ id: CODEX_TITLED, thread_name: 'renamed in codex', updated_at: '2026-03-10T10:00:00Z' }) + '\n'),
    ];
    for (const change of changes) {
      const before = table(h);
      change();
      const now = table(h);
      expect(now).not.toBe(before);
      // Kept again by the run above when settled; either way the same as a fresh listing.
      settle(h);
      table(h);
      expect(table(h)).toBe(freshTable(h, ['--global']));
      expect(now).toBe(freshTable(h, ['--global']));
    }
  });

  it('prints local times in the time zone of the run, not of the run that kept the view', () => {
    const h = viewedHome();
    const utc = table(h, ['--global'], { TZ: 'UTC' });
    const tokyo = table(h, ['--global'], { TZ: 'Asia/Tokyo' });
    expect(tokyo).not.toBe(utc);
    expect(tokyo).toBe(freshTable(h, ['--global'], { TZ: 'Asia/Tokyo' }));
  });

  it('shortens cwds by the home folder of the run', () => {
    // The same Claude Code folder reached from another HOME: its cwds under work/ become ~/…
    const h = viewedHome();
    const env = { HOME: h.work, CLAUDE_CONFIG_DIR: join(h.home, '.claude') };
    settle(h);
    table(h, ['claude', '--global']);
    const moved = table(h, ['claude', '--global'], env);
    expect(moved).toContain('~/app');
    expect(moved).toBe(freshTable(h, ['claude', '--global'], env));
  });

  /** A Pi home with `name` given to one session and `other` (with its cwd moved to work/token) to the other, views kept. */
  function piNamed(name: string, other: string): AgentHome {
    const h = home();
    const tokenDir = join(h.work, 'token');
    mkdirSync(tokenDir);
    const pi = join(h.home, '.pi', 'agent', 'sessions');
    const [first, second] = readdirSync(pi).map((folder) => join(pi, folder, readdirSync(join(pi, folder))[0]!));
    const rename = (file: string, title: string): void => appendFileSync(file, JSON.stringify({ type: 'session_info', id: `ffff${title.length}`, parentId: '0e1f2a3b', timestamp: '2026-05-21T08:00:00.000Z', name: title }) + '\n');
    rename(first!, name);
    writeFileSync(second!, readFileSync(second!, 'utf8').replaceAll(join(h.work, 'other'), tokenDir).replaceAll(join(h.work, 'app'), tokenDir));
    rename(second!, other);
    settle(h);
    table(h);
    table(h);
    expect(existsSync(viewFile(h, 'pi'))).toBe(true);
    return h;
  }

  it('masks a secret in a kept title as a listing made afresh does', () => {
    // A kept line marked as holding a hint makes the whole table as before, masked as a whole.
    const token = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
    const h = piNamed(`push with ${token} tonight`, 'tidy the password docs');
    const r = h.run(['sessions', '--global']);
    expect(r.stdout).toContain('push with [masked:github-token] tonight');
    expect(r.stdout).not.toContain(token.slice(0, 12));
    expect(r.stderr).toContain('masked 1 secret (github-token)');
    expect(r.stdout).toBe(freshTable(h, ['--global']));
    expect(h.run(['sessions', '--global', '--reveal']).stdout).toContain(token);
  });

  it('masks a secret that spans two kept cells, a cwd ending in a name and a title that gives it a value', () => {
    // `…/token  = hunter2-rotate-me`: neither cell holds a hint alone; the printed line does.
    const h = piNamed('push tonight', '= hunter2-rotate-me');
    const r = h.run(['sessions', '--global']);
    expect(r.stdout).toContain('[masked:assignment]');
    expect(r.stdout).not.toContain('hunter2');
    expect(r.stderr).toContain('masked 1 secret (assignment)');
    expect(r.stdout).toBe(freshTable(h, ['--global']));
    expect(h.run(['sessions', '--global', '--reveal']).stdout).toContain('hunter2');
  });
});

// The lines of the kept views, sorted and aligned, are kept as one page (src/cli/commands/sessions.ts):
// a warm `sessions --global` checks the views' stamps, writes each LAST ACTIVITY cell for the zone
// of the run and splices in the lines of the sources listed at every run (terminal logs, agents
// without kept views). Each table below is compared with one made after every kept file is deleted.
describe('the sessions table from a kept page', () => {
  /** A settled home with terminal logs whose times fall between the agents' sessions, views and page kept. */
  function pagedHome(): AgentHome {
    const h = viewedHome();
    const data = join(h.home, 'data');
    const times = listJson(h, ['--global']).map((s) => Date.parse(s.updated_at ?? ''));
    const at = (i: number): number => times[Math.min(i, times.length - 1)]! / 1000;
    const newer = writeLog(data, '5151-1764400000', SAMPLE);
    const between = writeLog(data, '5252-1764400001', SAMPLE.slice(0, 2));
    // One log just after the newest session, one at the very time of another (the terminal's
    // line goes first: it is the first source), one older than every session.
    utimesSync(newer, at(0) + 60, at(0) + 60);
    utimesSync(between, at(2), at(2));
    utimesSync(writeLog(data, '5353-1764400002', SAMPLE.slice(0, 1)), at(times.length) - 86_400, at(times.length) - 86_400);
    table(h);
    expect(existsSync(pageFile(h))).toBe(true);
    return h;
  }

  it('answers from the page while nothing changed, the same table as a fresh listing', () => {
    const h = pagedHome();
    const before = table(h);
    expect(before).toContain('terminal');
    const file = pageFile(h);
    const text = readFileSync(file, 'latin1');
    // Its last line of printable ASCII, and that line's TITLE (whitespace in a title is one space).
    const line = text.split('\n').filter((l) => /^[\x20-\x7e]+$/.test(l)).at(-1)!;
    const title = line.split(/ {2,}/).at(-1)!;
    expect(title.length).toBeGreaterThan(3);
    // A title edited inside the page (same length, so every kept offset still holds) shows: the page answered.
    const edited = 'x'.repeat(title.length);
    writeFileSync(file, text.replace(`${title}\n`, `${edited}\n`), 'latin1');
    const utc = table(h);
    expect(utc).toContain(edited);
    expect(utc.replace(edited, title)).toBe(before);
    expect(freshTable(h, ['--global'])).toBe(before);
  });

  it('splices the terminal logs in as they change, and answers for a zone of its own', () => {
    const h = pagedHome();
    const log = join(h.home, 'data', 'terminals', '5353-1764400002.jsonl');
    const changes: (() => void)[] = [
      () => appendFileSync(log, JSON.stringify({ prompt: '$ ', command: 'date', output: 'today' }) + '\n'),
      () => writeLog(join(h.home, 'data'), '5454-1764400003', SAMPLE),
      () => rmSync(log),
    ];
    for (const change of changes) {
      const before = table(h);
      const page = readFileSync(pageFile(h));
      change();
      const now = table(h);
      expect(now).not.toBe(before);
      // The page still answered: its sources did not change.
      expect(readFileSync(pageFile(h))).toEqual(page);
      expect(now).toBe(freshTable(h, ['--global']));
      table(h);
    }
    const tokyo = table(h, ['--global'], { TZ: 'Asia/Tokyo' });
    expect(tokyo).not.toBe(table(h, ['--global'], { TZ: 'UTC' }));
    expect(tokyo).toBe(freshTable(h, ['--global'], { TZ: 'Asia/Tokyo' }));
  });

  it('is made again when a kept view or a session changes', () => {
    const h = pagedHome();
    const file = viewFile(h, 'claude');
    const text = readFileSync(file, 'utf8');
    const title = text.slice(text.lastIndexOf('\n') + 1).split('\t')[4]!;
    writeFileSync(file, text.replace(`\t${title}\t`, '\tas kept in the view\t'));
    expect(table(h)).toContain('as kept in the view');
    const dir = join(h.home, ...PROJECTS, '-home-ana-other');
    cpSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!), join(dir, 'dddddddd-1111-4222-8333-444455556666.jsonl'));
    const now = table(h);
    expect(now).not.toContain('as kept in the view');
    expect(now).toBe(freshTable(h, ['--global']));
  });

  it('splices in the sessions of an agent that keeps no view', () => {
    const h = agentHome(['claude', 'codex', 'pi', 'gemini']);
    cleanups.push(h.cleanup);
    settle(h);
    table(h);
    table(h);
    expect(existsSync(pageFile(h))).toBe(true);
    const now = table(h);
    expect(now).toContain('gemini');
    expect(now).toBe(freshTable(h, ['--global']));
  });
});
