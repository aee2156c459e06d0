// `sivtr search` through the CLI over real transcripts, a terminal log and history: queries,
// filters, formats, refs resolved by `show`, and the indexed path giving exactly what reading
// the sources directly (`--no-index`) gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeWorld, refsOf, searchJson, TERMINAL_ID, type World } from './world.js';

let world: World;
beforeAll(() => {
  world = makeWorld();
});
afterAll(() => world.cleanup());

const search = (...args: string[]) => searchJson(world.env, args);
const cli = (...args: string[]) => runCli(args, { env: world.env });
/** Refs as JSON and `--format refs` print them: with the full session id. */
const term = (index: number) => `terminal/${TERMINAL_ID}/${index}`;
/** Refs as people read them (full and timeline formats): the short display id. */
const shortTerm = (index: number) => `terminal/${TERMINAL_ID.slice(0, 8)}/${index}`;

describe('queries', () => {
  it('finds terminal, history and agent hits for natural language, every word first', () => {
    const r = search('connection refused', '--limit', '20');
    const refs = refsOf(r);
    expect(refs).toContain(term(1));
    expect(refs).toContain('history/1');
    expect(r.hits.filter((h) => h.all_terms).map((h) => h.ref)).toEqual(expect.arrayContaining([term(1), 'history/1']));
    // Hits holding every word come before hits holding only some.
    const firstPartial = r.hits.findIndex((h) => !h.all_terms);
    if (firstPartial !== -1) expect(r.hits.slice(firstPartial).every((h) => !h.all_terms)).toBe(true);
  });

  it('matches CJK, code-like substrings and short words', () => {
    expect(refsOf(search('terminal', '会话'))).toEqual([term(2)]);
    expect(refsOf(search('terminal', 'PR1137'))).toEqual([term(3)]);
    expect(refsOf(search('terminal', 'snake_case'))).toEqual([term(3)]);
    expect(refsOf(search('terminal', 'pr11'))).toEqual([term(3)]);
    expect(refsOf(search('terminal', 'db'))).toEqual([term(5)]);
  });

  it('never turns a multi-word query into an AND that silently returns nothing', () => {
    const r = search('terminal', 'postgres', 'kubernetes', 'helm');
    expect(refsOf(r)).toEqual([term(5)]);
    expect(r.hits[0]!.all_terms).toBe(false);
    const text = cli('search', 'terminal', 'postgres kubernetes');
    expect(text.stdout).toContain(shortTerm(5));
    expect(text.stderr).toMatch(/only some of the words/);
  });

  it('weights commands and dialogue above output', () => {
    // "npm test" is the command of terminal/5 and appears only in output/tool text elsewhere.
    expect(refsOf(search('terminal', 'npm test'))[0]).toBe(term(5));
  });

  it('keeps positions of non-records: indexes match the log', () => {
    expect(refsOf(search('terminal', 'echo done'))).toEqual([term(6)]);
  });

  it('finds agent turns with provider refs', () => {
    const r = search('claude', 'README');
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits[0]!.ref).toMatch(/^claude\/2b8d4f60-0a1b-4c2d-8e3f-405162738495\/\d+$/);
  });

  it('indexes every registered provider, database-backed ones included', () => {
    const sources = new Set(search('--limit', '500').hits.map((h) => h.source));
    for (const s of ['terminal', 'history', 'claude', 'codex', 'pi', 'gemini', 'opencode']) expect(sources, s).toContain(s);
  });

  it('returns nothing (exit 0) when nothing matches', () => {
    const r = cli('search', 'zzqqxxnothing');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no hits/);
  });
});

describe('filters', () => {
  it('TARGET narrows the sources', () => {
    expect(search('terminal', 'connection', '--limit', '50').hits.every((h) => h.source === 'terminal')).toBe(true);
    expect(search('history', 'connection', '--limit', '50').hits.map((h) => h.ref)).toEqual(['history/1']);
    const agent = search('agent', 'test', '--limit', '50').hits;
    expect(agent.length).toBeGreaterThan(0);
    expect(agent.every((h) => !['terminal', 'history'].includes(h.source))).toBe(true);
    expect(search('codex', 'test', '--limit', '50').hits.every((h) => h.source === 'codex')).toBe(true);
  });

  it('--in picks the parts searched', () => {
    expect(refsOf(search('terminal', 'curl', '--in', 'command'))).toEqual([term(1)]);
    expect(refsOf(search('terminal', 'curl', '--in', 'output'))).toEqual([term(1)]); // the output says "curl: (7)"
    expect(refsOf(search('terminal', 'health', '--in', 'output'))).toEqual([]);
    expect(refsOf(search('terminal', 'health', '--in', 'input'))).toEqual([term(1)]);
    const titled = search('claude', 'npm test', '--in', 'title', '--limit', '50');
    expect(titled.hits.length).toBeGreaterThan(0);
    expect(titled.hits.every((h) => h.title.toLowerCase().includes('npm test'))).toBe(true);
  });

  it('--status keeps successes, failures or unknown outcomes', () => {
    expect(refsOf(search('terminal', '--status', 'failure', '--limit', '50')).sort()).toEqual([term(1), term(5)].sort());
    expect(refsOf(search('terminal', '--status', 'success', '--limit', '50')).sort()).toEqual([term(2), term(3), term(6)].sort());
    expect(refsOf(search('history', '--status', 'unknown', '--limit', '50')).sort()).toEqual(['history/1', 'history/2']);
  });

  it('--since, --until and --last bound the time', () => {
    expect(refsOf(search('terminal', '--since', '2026-11-22T00:00:00Z', '--until', '2026-11-23T12:00:00Z', '--limit', '50')).sort()).toEqual([term(3), term(5)].sort());
    expect(refsOf(search('terminal', '--since', String(Date.parse('2026-11-24T00:00:00Z') / 1000), '--limit', '50'))).toEqual([term(6)]);
    expect(refsOf(search('terminal', '--until', String(Date.parse('2026-11-20T12:00:00Z')), '--limit', '50'))).toEqual([term(1)]);
    // History was captured moments ago; the terminal records are days old.
    const recent = refsOf(search('--last', '30m', '--limit', '50'));
    expect(recent).toEqual(expect.arrayContaining(['history/1', 'history/2']));
    expect(recent.some((r) => r.startsWith('terminal/'))).toBe(false);
    expect(refsOf(search('history', '--since', 'today', '--limit', '50')).sort()).toEqual(['history/1', 'history/2']);
    expect(refsOf(search('terminal', '--since', 'yesterday', '--limit', '50'))).toEqual([]);
    expect(cli('search', '--since', 'last tuesday').code).toBe(2);
    expect(cli('search', '--last', 'today').code).toBe(2);
  });

  it('--match keeps hits with a part matching the regex, with or without a query', () => {
    expect(refsOf(search('terminal', '--match', 'port \\d+', '--limit', '50'))).toEqual([term(1)]);
    expect(refsOf(search('terminal', 'connect', '--match', 'ECONN', '--limit', '50'))).toEqual([term(5)]);
    expect(refsOf(search('terminal', 'connect', '--match', 'port \\d+', '--limit', '50'))).toEqual([term(1)]);
    expect(cli('search', '--match', '(').code).toBe(1);
  });

  it('--limit caps the hits and defaults to 5; total counts them all', () => {
    const all = search('terminal', '--limit', '50');
    expect(all.hits).toHaveLength(5);
    expect(search('terminal').hits).toHaveLength(5);
    const two = search('terminal', '--limit', '2');
    expect(two.hits).toHaveLength(2);
    expect(two.total).toBe(5);
    expect(cli('search', '--limit', '0').code).toBe(2);
  });
});

describe('formats and refs', () => {
  it('full prints ref, time, title and snippet; refs one per line; timeline oldest first', () => {
    const full = cli('search', 'terminal', 'connection refused');
    expect(full.code).toBe(0);
    expect(full.stdout).toContain(`${shortTerm(1)}  `);
    expect(full.stdout).toContain('curl localhost:8080/health');
    expect(full.stdout).toContain('Connection refused');
    const refs = cli('search', 'terminal', '--format', 'refs', '--limit', '3').stdout;
    expect(refs).toBe(`${term(6)}\n${term(5)}\n${term(3)}\n`);
    const timeline = cli('search', 'terminal', '--format', 'timeline', '--limit', '3').stdout.trim().split('\n');
    expect(timeline.map((l) => l.split(/\s+/)[2])).toEqual([shortTerm(3), shortTerm(5), shortTerm(6)]);
  });

  it('json has the docs/cli.md shape', () => {
    const r = search('history', 'docker');
    expect(r.total).toBe(1);
    expect(r.hits[0]).toMatchObject({ ref: 'history/1', source: 'history', title: 'docker compose up', at: expect.any(String) });
    expect(r.hits[0]!.snippet).toContain('docker compose up');
  });

  it('every hit’s ref resolves with `sivtr show`', () => {
    const refs = cli('search', '--format', 'refs', '--limit', '100').stdout.trim().split('\n');
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      const r = cli('show', ref);
      expect(r.code, `${ref}: ${r.stderr}`).toBe(0);
    }
    for (const hit of search('connection refused', '--limit', '20').hits) {
      const shown = cli('show', hit.ref);
      expect(shown.code).toBe(0);
      const words = hit.snippet.replace(/…/g, ' ').split(/\s+/).filter((w) => w.length > 3).slice(0, 3);
      for (const w of words) expect(shown.stdout.replace(/\s+/g, ' ')).toContain(w);
    }
  });
});

describe('--no-index gives exactly the indexed answer', () => {
  const cases: string[][] = [
    ['connection refused'],
    ['connection', 'refused', '--limit', '20'],
    ['terminal', '会话'],
    ['PR1137'],
    ['snake_case'],
    ['npm test', '--limit', '10'],
    ['agent', 'test', '--limit', '30'],
    ['claude', 'README'],
    ['codex', '--limit', '50'],
    ['opencode', '--limit', '50'],
    ['gemini', '--limit', '50'],
    ['pi', '--limit', '50'],
    ['history'],
    ['--status', 'failure', '--limit', '50'],
    ['--in', 'command', 'test', '--limit', '50'],
    ['--in', 'title', 'npm'],
    ['--since', '2026-01-01', '--until', '2026-11-30T00:00:00Z', '--limit', '100'],
    ['--match', 'refused|failed', '--limit', '100'],
    ['postgres kubernetes'],
    ['db'],
    ['--kind', 'tool_output', 'build', '--limit', '20'],
    ['--kind', 'user,assistant', '--sort', 'time', '--limit', '20'],
    ['--terms', '["connection","refused"]', '--operator', 'and', '--limit', '20'],
    ['--terms', '["README","test"]', '--operator', 'or', '--sort', 'time', '--limit', '20'],
  ];
  for (const format of ['full', 'refs', 'json', 'timeline']) {
    it(`format ${format}`, () => {
      for (const args of cases) {
        const indexed = cli('search', ...args, '--format', format, '--color', 'never');
        const again = cli('search', ...args, '--format', format, '--color', 'never');
        const direct = cli('search', ...args, '--format', format, '--color', 'never', '--no-index');
        expect(indexed.code, indexed.stderr).toBe(0);
        expect(direct.code, direct.stderr).toBe(0);
        expect(direct.stdout, args.join(' ')).toBe(indexed.stdout);
        expect(again.stdout, args.join(' ')).toBe(indexed.stdout);
        expect(direct.stderr).toBe(indexed.stderr);
      }
    }, 180_000);
  }
});
