// The MCP server counts a term's lead parts from postings of the leads' words
// (src/store/lead-postings.ts) instead of walking every lead's text. Those counts must be the
// walk's, to the occurrence: the same page, order, snippets and totals. Held here three ways: the
// postings' counts against a plain walk over generated leads; every search of a generated corpus
// (agent sessions and terminal records) with the leads kept against the same index walking them;
// and a session appended after the postings were built, which the next search must see.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CachedLead, type IndexDb, type PartDir } from '../../src/store/index-db.js';
import { LeadPostings } from '../../src/store/lead-postings.js';
import { leadBytesPath, leadRankStats, search, warmUpRanking, type SearchRequest } from '../../src/store/search.js';
import { syncIndex } from '../../src/store/sync.js';
import { tempDir } from '../helpers/cli.js';
import { buildLeadCorpus } from '../helpers/lead-corpus.js';

const quiet = { total() {}, step() {}, done() {} };
const NOW = Date.parse('2026-12-01T00:00:00Z');

/** Texts that reach every corner of lower-casing and of what a word is. */
const ODD_TEXTS = [
  'parser config: the Parser re-parsed CONFIG.json (parserparser)',
  'İstanbul ΣΊΣΥΦΟΣ σίσυφος ς — lower-casing that changes lengths',
  '会话记录 会话 会 snake_case_helpers PR1137 pr1137x',
  'aaaa aaaaa aa a_a a-a',
  `${'error '.repeat(80)}warning`,
  'tok-claude-3-1 localhost:8080 "connection refused"',
  '',
];

/** Occurrences of `term` in `text` as the walk counts them: each after the last, at most `cap`. */
function walkCount(text: string, term: string, cap: number): number {
  let n = 0;
  for (let at = text.indexOf(term); at !== -1 && n < cap; at = text.indexOf(term, at + term.length)) n++;
  return n;
}

function leadFrom(chunk: number, texts: string[]): CachedLead {
  const dir: PartDir[] = texts.map((t, i) => [i, 1, i % 2 === 0 ? 'user' : 'tool_call', null, t.length, 1]);
  const text = texts.join('\u0000');
  return { chunk, session: 1, firstUnit: 1, dir, text, lower: text.toLowerCase() };
}

describe('lead postings', () => {
  it('count every term as a walk over the lower-cased parts does', () => {
    const leads = [leadFrom(1, ODD_TEXTS), leadFrom(2, [...ODD_TEXTS].reverse()), leadFrom(3, ['İİİ parser', 'PARSER'])];
    const postings = LeadPostings.build(leads);
    const every = new Set([1, 2, 3]);
    const terms = ['parser', 'arse', 'config', 'error', 'a', 'aa', 'aaa', 'istanbul', 'i̇stanbul', 'σίσυφος', 'σ', 'ς', '会话', '会', 'snake_case', 'pr1137', 'warning', 'zzz', '_'];
    for (const term of terms) {
      const got = postings.termCounts([term], undefined, every, 64)!;
      leads.forEach((lead, li) => {
        // Part by part, lower-cased the way the walk lower-cases a lead.
        const whole = lead.lower.length === lead.text.length;
        let at = 0;
        lead.dir.forEach((d, p) => {
          const part = whole ? lead.lower.slice(at, at + d[4]) : lead.text.slice(at, at + d[4]).toLowerCase();
          at += d[4] + 1;
          const want = walkCount(part, term, 64);
          expect(got.get(lead.chunk)?.[p]?.[0] ?? 0, `${term} in lead ${li} part ${p}`).toBe(want);
        });
      });
    }
    // Capped like the walk, and only the kinds asked for.
    expect(postings.termCounts(['error'], undefined, every, 64)!.get(1)![4]).toEqual([64]);
    const users = postings.termCounts(['parser'], new Set(['user']), every, 64)!;
    expect(users.get(3)).toEqual([[1], undefined]);
    // Only the chunks asked for.
    expect([...postings.termCounts(['parser'], undefined, new Set([2]), 64)!.keys()]).toEqual([2]);
    // A term holding what no word holds is left to the walk.
    expect(postings.termCounts(['connection refused'], undefined, every, 64)).toBeUndefined();
    expect(postings.termCounts(['parser', 'a-a'], undefined, every, 64)).toBeUndefined();
  });

  it('give units in flat arrays with the counts termCounts gives', () => {
    const leads = [leadFrom(1, ODD_TEXTS), leadFrom(2, ['parser', 'config', 'PARSER config']), leadFrom(3, ['İİİ parser', 'PARSER'])];
    leads[2]!.firstUnit = 100;
    const postings = LeadPostings.build(leads);
    const every = new Set([1, 2, 3]);
    for (const terms of [['parser'], ['parser', 'config'], ['error', 'warning', 'a'], ['会话', 'snake_case', 'pr1137'], ['zzz']]) {
      for (const kinds of [undefined, new Set(['user'])]) {
        const counts = postings.termCounts(terms, kinds, every, 64)!;
        const units = postings.matchUnits(terms, kinds, { wants: (l: CachedLead) => l.chunk !== 3 || terms.length > 1 }, 64)!;
        // Rebuilt per chunk and part from the units, as termCounts gives them.
        const rebuilt = new Map<number, (number[] | undefined)[]>();
        for (let u = 0; u < units.count; u++) {
          const lead = units.leadOf(u);
          expect(units.chunk[u]).toBe(lead.chunk);
          let mask = 0;
          for (let r = units.start[u]!; r < units.start[u + 1]!; r++) {
            const p = lead.dir.findIndex((d) => d[0] === units.uid[u]! - lead.firstUnit && d[1] === units.n[r]);
            expect(units.length[r]).toBe(lead.dir[p]![4]);
            const tf = Array.from(units.tf.subarray(r * terms.length, (r + 1) * terms.length));
            tf.forEach((c, t) => (mask |= c > 0 ? 1 << t : 0));
            let list = rebuilt.get(lead.chunk);
            if (!list) rebuilt.set(lead.chunk, (list = new Array(lead.dir.length)));
            list[p] = tf;
          }
          expect(units.mask[u]).toBe(mask);
          expect(units.held[u]).toBe(terms.filter((_, t) => mask & (1 << t)).length);
        }
        const wanted = new Map([...counts].filter(([chunk]) => chunk !== 3 || terms.length > 1));
        expect(rebuilt, `${terms.join(' ')} ${kinds ? 'user' : 'all'}`).toEqual(wanted);
      }
    }
    expect(postings.matchUnits(['parser', 'a-a'], undefined, { wants: () => true }, 64)).toBeUndefined();
  });

  it('name the words of letters the most lead parts hold', () => {
    const postings = LeadPostings.build([leadFrom(1, ['zebra parser parser', 'parser config', 'a a a a', 'PR1137 pr1137 pr1137 pr1137']), leadFrom(2, ['config parser', 'zebra ok', 'x_y x_y x_y x_y x_y', 'parser config okapi']), leadFrom(3, ['okapi'])]);
    // Parts holding each: parser 4, config 3, zebra 2, okapi 2 (a tie goes to the word met first);
    // `a` and `ok` are short, pr1137 and x_y not letters alone.
    expect(postings.commonWords(2)).toEqual(['parser', 'config']);
    expect(postings.commonWords(3)).toEqual(['parser', 'config', 'zebra']);
    expect(postings.commonWords(9)).toEqual(['parser', 'config', 'zebra', 'okapi']);
    expect(LeadPostings.build([]).commonWords(3)).toEqual([]);
  });

  it('drop a removed lead and list an added one', () => {
    const postings = LeadPostings.build([leadFrom(1, ['parser one']), leadFrom(2, ['parser two'])]);
    postings.remove(1);
    postings.add(leadFrom(3, ['zebra parser', 'parser parser']));
    const got = postings.termCounts(['parser'], undefined, new Set([1, 2, 3]), 64)!;
    expect([...got.entries()].sort()).toEqual([[2, [[1]]], [3, [[1], [2]]]]);
    expect(postings.termCounts(['zebra'], undefined, new Set([1, 2, 3]), 64)!.get(3)).toEqual([[1], undefined]);
    expect(postings.termCounts(['one'], undefined, new Set([1, 2, 3]), 64)!.size).toBe(0);
    expect(postings.worthRebuilding).toBe(false);
    postings.remove(2);
    postings.remove(3);
    expect(postings.worthRebuilding).toBe(true);
  });
});

const base: SearchRequest = { target: 'all', query: '', field: 'content', limit: 10, now: NOW, current: [] };

const requests: Partial<SearchRequest>[] = [
  { query: 'parser config' },
  { query: 'parser config', limit: 3 },
  { query: 'error warning' },
  { query: 'parser' },
  { query: 'the' },
  { query: 'arse onfi' },
  { query: 'session token cache' },
  { query: 'to' },
  { query: 'a' },
  { query: '会话' },
  { query: '会' },
  { query: 'PR1137' },
  { query: 'snake_case' },
  { query: 'İstanbul' },
  { query: 'ΣΊΣΥΦΟΣ' },
  { query: 'tok-claude-3-1' },
  { query: '"connection refused"' },
  { query: 'error', kinds: ['user'] },
  { query: 'parser', kinds: ['tool_output', 'assistant'] },
  { query: 'parser config', field: 'command' },
  { query: 'parser', target: 'claude' },
  { query: 'parser config', target: 'terminal' },
  { query: 'parser', terms: ['parser', 'config'], operator: 'and' },
  { query: 'parser', terms: ['parser', 'zebra'], operator: 'or' },
  { query: 'parser config', sort: 'time' },
  { query: 'error warning', limit: 40 },
  // Ranked from the postings alone (LeadRanker): deep pages, ties in score (the corpus's tool
  // calls repeat `npm run <word>`), filters of every kind with common words.
  { query: 'parser config', limit: 1 },
  { query: 'parser config', limit: 120 },
  { query: 'parser config', limit: 300 },
  { query: 'run', limit: 60 },
  { query: 'npm run build', limit: 25 },
  { query: 'build', kinds: ['tool_call'], limit: 30 },
  { query: 'session token', kinds: ['user', 'assistant'], limit: 15 },
  { query: 'error warning', status: 'failure' },
  { query: 'error warning', status: 'success', limit: 30 },
  { query: 'parser config', since: Date.UTC(2026, 0, 5, 12), limit: 20 },
  { query: 'parser config', until: Date.UTC(2026, 0, 6), limit: 20 },
  { query: 'cache index', since: Date.UTC(2026, 0, 5, 10), until: Date.UTC(2026, 0, 7), limit: 12 },
  { query: 'parser config', target: 'codex', limit: 20 },
  { query: 'error token', target: 'pi', limit: 8 },
  { query: 'error warning', target: 'agent', limit: 20 },
  { query: 'error warning', target: 'terminal', limit: 20 },
  { query: 'parser config', field: 'input', limit: 20 },
  { query: 'parser config', inScope: (cwd) => (cwd ?? '').length % 2 === 0, limit: 20 },
  { query: 'error', match: /error \w+ \w+/, limit: 10 },
  { query: 'PARSER Parser config', limit: 10 },
  { query: 'parser config session token cache index', limit: 10 },
  { query: 'parser co', limit: 10 },
  { query: 'parser config', sort: 'time', limit: 5 },
];

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let index: IndexDb;

/** A search with the leads kept (the postings), and the same over the index walking its leads (not reading them as bytes: lead-bytes.test.ts holds that path to the walk). */
function both(req: SearchRequest): { kept: ReturnType<typeof search>; walked: ReturnType<typeof search> } {
  index.keepLeads = true;
  const kept = search(index, req);
  index.keepLeads = false;
  leadBytesPath.enabled = false;
  try {
    const walked = search(index, req);
    return { kept, walked };
  } finally {
    leadBytesPath.enabled = true;
  }
}

beforeAll(async () => {
  ({ tmp, env, index } = await buildLeadCorpus('sivtr-lead-postings-', ODD_TEXTS, 600));
});

afterAll(() => {
  index?.close();
  tmp?.cleanup();
});

describe('search with the leads kept', () => {
  it('builds the postings for a search of common words', () => {
    index.keepLeads = true;
    search(index, { ...base, query: 'parser config' });
    expect(index.cachedLeads()?.postings).toBeDefined();
  });

  it.each(requests.map((r, i) => [i, r.query, r] as const))('request %i (%s) gives what walking the leads gives', (_, _q, r) => {
    const req = { ...base, ...r };
    const { kept, walked } = both(req);
    expect(kept).toEqual(walked);
    if (!['zzz'].includes(req.query) && req.status !== 'failure') expect(kept.hits.length).toBeGreaterThan(0);
  });

  it('ranks searches of common words from the postings alone, and reads on where a chunk must be read', () => {
    const how = (req: Partial<SearchRequest>): 'ranked' | 'read on' | 'walked' => {
      const before = { ...leadRankStats };
      const { kept, walked } = both({ ...base, ...req });
      expect(kept, JSON.stringify(req)).toEqual(walked);
      return leadRankStats.ranked > before.ranked ? 'ranked' : leadRankStats.readOn > before.readOn ? 'read on' : 'walked';
    };
    for (const query of ['parser config', 'error warning', 'parser', 'config parser', 'error']) expect(how({ query }), query).toBe('ranked');
    expect(how({ query: 'parser config', target: 'codex', status: 'success', kinds: ['user', 'tool_call'] })).toBe('ranked');
    // A page longer than the hits known from the leads, or newest first: every chunk that may hold the words is read.
    expect(how({ query: 'parser config', limit: 5000 })).toBe('read on');
    expect(how({ query: 'parser config', sort: 'time' })).toBe('read on');
    // A term holding what no word holds is counted by walking the leads.
    expect(how({ query: 'tok-claude-3-1' })).toBe('walked');
  });

  it('warms the ranking of common words up with the index’s own words, changing no answer', () => {
    const req = { ...base, query: 'parser config', limit: 12 };
    index.keepLeads = true;
    const before = search(index, req);
    const ranked = leadRankStats.ranked;
    warmUpRanking(index, NOW);
    // Every warm-up search was ranked from the postings: the code the goal counts is the code warmed.
    expect(leadRankStats.ranked).toBe(ranked + 4);
    expect(search(index, req)).toEqual(before);
    expect(both(req).walked).toEqual(before);
  });

  it('folds the caller’s own recent turns as walking the leads does', () => {
    const newest = index.db.prepare("SELECT s.source, s.sid, max(u.at) AS at FROM units u JOIN sessions s ON s.id = u.session WHERE s.source = 'claude' GROUP BY s.id ORDER BY at DESC LIMIT 1").get() as { source: string; sid: string; at: number };
    const req = { ...base, query: 'parser config', limit: 20, now: newest.at + 60_000, current: [{ source: newest.source, id: newest.sid.slice(0, 8) }] };
    const { kept, walked } = both(req);
    expect(kept).toEqual(walked);
    const withSelf = both({ ...req, includeSelf: true });
    expect(withSelf.kept).toEqual(withSelf.walked);
  });

  it('sees a record appended after the postings were built', async () => {
    const all = { ...base, query: 'parser config', limit: 2000 };
    const newest = (r: ReturnType<typeof search>): boolean => r.hits.some((h) => /^terminal\/.*\/601$/.test(h.ref));
    const before = both(all);
    expect(newest(before.kept)).toBe(false);
    index.keepLeads = true;
    const built = index.cachedLeads()?.postings;
    expect(built).toBeDefined();
    appendFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'parser config', output: 'ok', cwd: '/work', ended_at: '2026-11-30T09:00:00Z', exit_code: 0 }) + '\n');
    await syncIndex(index, env, quiet);
    const after = both(all);
    expect(after.kept).toEqual(after.walked);
    expect(newest(after.kept)).toBe(true);
    expect(after.kept.total).toBe(before.kept.total + 1);
    // Brought up to date in place: the new chunks' leads added, the replaced ones dropped.
    index.keepLeads = true;
    expect(index.cachedLeads()?.postings).toBe(built);
  });

  it('sees a record appended between two searches ranked from the postings', async () => {
    const req = { ...base, query: 'parser config', target: 'terminal', limit: 5 };
    const first = both(req);
    expect(first.kept).toEqual(first.walked);
    appendFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'parser config parser config parser config parser config', output: 'ok', cwd: '/work', ended_at: '2026-11-30T10:00:00Z', exit_code: 0 }) + '\n');
    await syncIndex(index, env, quiet);
    const ranked = leadRankStats.ranked;
    const after = both(req);
    expect(leadRankStats.ranked).toBe(ranked + 1);
    expect(after.kept).toEqual(after.walked);
    // The new record (the log's last line) ranks first, above every hit of the search before.
    const records = readFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl'), 'utf8').trim().split('\n').length;
    expect(after.kept.hits[0]!.ref).toMatch(new RegExp(`^terminal/.*/${records}$`));
    expect(after.kept.hits.slice(1).map((h) => h.ref)).toEqual(first.kept.hits.slice(0, 4).map((h) => h.ref));
  });

  it('ranks from the postings when chunk ids are far apart (an index rewritten for months)', async () => {
    // Ids only grow: the next chunk written gets this id, thousands of times the others'.
    index.setMeta('next_chunk', '4000000');
    appendFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'parser config parser config far', output: 'ok', cwd: '/work', ended_at: '2026-11-30T11:00:00Z', exit_code: 0 }) + '\n');
    await syncIndex(index, env, quiet);
    expect(index.db.prepare('SELECT max(id) FROM chunks').pluck().get()).toBeGreaterThanOrEqual(4_000_000);
    for (const req of [{ query: 'parser config', target: 'terminal' }, { query: 'config parser' }, { query: 'error warning', limit: 30 }]) {
      const ranked = leadRankStats.ranked;
      const { kept, walked } = both({ ...base, ...req });
      expect(kept, req.query).toEqual(walked);
      expect(leadRankStats.ranked, req.query).toBe(ranked + 1);
    }
    expect(both({ ...base, query: 'parser config far', target: 'terminal', limit: 1 }).kept.hits[0]!.ref).toMatch(/\/60\d$/);
  });

  it('sees a record rewritten in place to text of the same length (its chunk gets a new id)', async () => {
    const log = join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl');
    const ids = (): number[] => index.db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all() as number[];
    const before = ids();
    const lines = readFileSync(log, 'utf8').split('\n');
    // Record 8 (i = 7): `parser config …`; the same command with other words of the same length.
    expect(JSON.parse(lines[7]!).command).toMatch(/^parser config /);
    lines[7] = lines[7]!.replace('"command":"parser config', '"command":"okapis zebras');
    writeFileSync(log, lines.join('\n'));
    both({ ...base, query: 'parser config', limit: 50 }); // the leads kept and their postings, as they were
    await syncIndex(index, env, quiet);
    // The log's chunks were written again, each with an id no chunk had.
    const logChunks = index.db.prepare("SELECT c.id FROM chunks c JOIN sessions s ON s.id = c.session WHERE s.sid = '5151-1764400000'").pluck().all() as number[];
    expect(logChunks.length).toBeGreaterThan(0);
    expect(Math.min(...logChunks)).toBeGreaterThan(Math.max(...before));
    for (const query of ['okapis zebras', 'parser config', 'zebras']) {
      const r = both({ ...base, query, limit: 50 });
      expect(r.kept, query).toEqual(r.walked);
    }
    expect(both({ ...base, query: 'okapis', target: 'terminal' }).kept.hits.map((h) => h.ref)).toEqual([expect.stringMatching(/\/8$/)]);
  });
});
