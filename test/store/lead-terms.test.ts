// The lists of the index's common lead terms (src/store/lead-terms.ts) stand in for reading every
// lead: their counts must be the walk's to the occurrence, and a search ranked from them must
// give what walking the leads gives — page, order, totals, snippets — through appends,
// rewrites, deleted sessions and merged lists. The lists are chosen only once an index holds
// LEAD_TERMS.minLeads leads: these tests lower it, so a small corpus has them.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadOf, type IndexDb, type PartDir } from '../../src/store/index-db.js';
import { chooseLeadTerms, ENTRY_INTS, LEAD_TERMS, LeadTermCounter } from '../../src/store/lead-terms.js';
import { LEAD_MERGE } from '../../src/store/lead-bytes.js';
import { leadBytesPath, search, type SearchRequest } from '../../src/store/search.js';
import { syncIndex } from '../../src/store/sync.js';
import { tempDir } from '../helpers/cli.js';
import { buildLeadCorpus } from '../helpers/lead-corpus.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');
const quiet = { total() {}, step() {}, done() {} };

/** Each part's count of `term` as countTerms (search.ts) counts it: the lead lower-cased whole when that keeps its length, else part by part; each occurrence after the last, at most `cap`. */
function walkCounts(texts: string[], term: string, cap: number): number[] {
  const whole = texts.join('\u0000');
  const lower = whole.toLowerCase();
  let at = 0;
  return texts.map((t) => {
    const part = lower.length === whole.length ? lower.slice(at, at + t.length) : t.toLowerCase();
    at += t.length + 1;
    let n = 0;
    for (let i = part.indexOf(term); i !== -1 && n < cap; i = part.indexOf(term, i + term.length)) n++;
    return n;
  });
}

describe('the lists of common lead terms', () => {
  const LEADS: string[][] = [
    ['parser config: the Parser re-parsed CONFIG.json (parserparser)', '会话记录 会话 会', 'PARSERPARSERPARSER'],
    ['İstanbul PARSER — lower-casing that changes lengths, part by part', 'parser ΣΊΣΥΦΟΣ config'],
    ['Kelvin \u212aelvin kelvin', 'a NUL \u0000 inside: parser config', '会话: a part holding \u0000 a NUL 会话'],
    [`${'parser '.repeat(300)}`, 'aaaa aaa', '话 at the start'],
    ['ÀÉ会话Ö「引用」Ü ÃParser ÂCONFIG', ''],
  ];
  const TERMS = ['parser', 'config', '会话', 'kelvin', 'aaa', 'parserparser', '「引'];

  it.each([true, false])('count each part as the walk does, capped as an entry keeps it (WebAssembly: %s)', (wasm) => {
    LEAD_TERMS.wasm = wasm;
    const counter = new LeadTermCounter(TERMS);
    LEAD_TERMS.wasm = true;
    const dirs: PartDir[][] = [];
    LEADS.forEach((texts, i) => {
      const dir: PartDir[] = texts.map((t, p) => [p, p + 1, p === 1 ? 'tool_call' : 'user', null, t.length, p + 1]);
      dirs.push(dir);
      const lead = leadOf(dir, texts)!;
      counter.add({ chunk: 10 + i, session: 3, firstUnit: 100 * i, dir: lead.dir, text: lead.text }, -1);
    });
    const lists = new Map(counter.take().map(([term, bytes]) => [term, new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)]));
    for (const term of TERMS) {
      const want: number[][] = [];
      LEADS.forEach((texts, i) =>
        walkCounts(texts, term, 255).forEach((n, p) => {
          if (n > 0) want.push([10 + i, 3, 100 * i, p, p + 1, texts[p]!.length, ((p === 1 ? 1 : 0) << 8) | n]);
        }),
      );
      const ints = lists.get(term) ?? new Int32Array(0);
      const have: number[][] = [];
      // The kind's place in LEAD_KINDS: user is 0, tool_call 1 (see index-db.ts).
      for (let e = 0; e < ints.length; e += ENTRY_INTS) have.push([...ints.subarray(e, e + ENTRY_INTS)].map((v, k) => (k === 6 ? (((v >>> 8) === 0 ? 0 : 1) << 8) | (v & 0xff) : v)));
      expect(have, term).toEqual(want);
    }
    // 300 occurrences kept as 255 (a search caps them at 64); overlapping ones counted as indexOf steps.
    expect(walkCounts(LEADS[3]!, 'parser', 255)[0]).toBe(255);
    expect(walkCounts(LEADS[3]!, 'aaa', 255)[1]).toBe(2);
    expect(counter.inWasm).toBe(wasm);
    expect(walkCounts(LEADS[0]!, 'parserparser', 255)[2]).toBe(1);
  });

  it('are chosen among words and CJK pairs most leads hold, with gram keys', () => {
    const leads = Array.from({ length: 40 }, (_, i) => ({ text: `parser config run-${i} 会话记录 ${i % 10 === 0 ? 'rare' : ''} ab` }));
    const terms = chooseLeadTerms(leads);
    expect(terms).toEqual(expect.arrayContaining(['parser', 'config', 'run', '会话', '话记', '记录']));
    // Held by a tenth of the leads (under the share), or without keys (two ASCII letters).
    expect(terms).not.toContain('rare');
    expect(terms).not.toContain('ab');
    expect(terms.indexOf('parser')).toBeLessThan(terms.indexOf('会话'));
  });
});

const base: SearchRequest = { target: 'all', query: '', field: 'content', limit: 10, now: NOW, current: [] };

const ODD_TEXTS = [
  'parser config: the Parser re-parsed CONFIG.json (parserparser)',
  'İstanbul ΣΊΣΥΦΟΣ σίσυφος ς — lower-casing that changes lengths',
  '会话记录 会话 会 snake_case_helpers PR1137 pr1137x',
  'Kelvin \u212aelvin kelvin ｐａｒｓｅｒ',
  'a NUL \u0000 inside: connection refused',
  '话 tok-claude-3-1 localhost:8080 "connection refused" 会',
  'ÀÉ会话Ö「引用」Ü ÃParser ÂCONFIG Ã「',
];

const requests: Partial<SearchRequest>[] = [
  { query: '会话' },
  { query: '会话', limit: 40 },
  { query: '会话', kinds: ['user'] },
  { query: '会话', target: 'terminal' },
  { query: '会话', target: 'claude' },
  { query: '会话', field: 'command' },
  { query: 'parser config' },
  { query: 'Parser CONFIG', limit: 30 },
  { query: 'config parser', target: 'agent' },
  { query: 'parser config', field: 'input' },
  { query: 'parser config', kinds: ['tool_call'] },
  { query: 'parser config', sort: 'time' },
  { query: 'parser config', limit: 300 },
  { query: 'parser config 会话', limit: 20 },
  { query: 'parser', status: 'failure' },
  { query: 'config', since: Date.parse('2026-11-02T05:00:00Z') },
  { query: 'parser config zzzunlisted' },
];

describe('search ranked from the lists', () => {
  let tmp: ReturnType<typeof tempDir>;
  let index: IndexDb;
  let env: NodeJS.ProcessEnv;
  const saved = { ...LEAD_TERMS };

  beforeAll(async () => {
    LEAD_TERMS.minLeads = 8;
    // Every word the corpus holds in an eighth of its leads: the generated sessions have a few hundred.
    LEAD_TERMS.maxWords = 1000;
    ({ tmp, index, env } = await buildLeadCorpus('sivtr-lead-terms-', ODD_TEXTS, 400));
  });

  afterAll(() => {
    Object.assign(LEAD_TERMS, saved);
    leadBytesPath.enabled = true;
    leadBytesPath.listed = true;
    index?.close();
    tmp?.cleanup();
  });

  /**
   * The search from the lists (when they answer: their merge in WebAssembly where it runs, and in
   * JavaScript, which must agree), with the leads read as bytes, and with every lead walked.
   */
  function three(req: SearchRequest): { listed: ReturnType<typeof search>; bytes: ReturnType<typeof search>; walked: ReturnType<typeof search>; fromLists: boolean } {
    const before = leadBytesPath.fromLists;
    const mergedBefore = LEAD_MERGE.merged;
    const levelsBefore = LEAD_MERGE.levels;
    const listed = search(index, req);
    const fromLists = leadBytesPath.fromLists > before;
    // Every target's sessions but one source's: the lists are merged in WebAssembly.
    expect(LEAD_MERGE.merged > mergedBefore, 'merged in WebAssembly').toBe(fromLists && req.target === 'all');
    // Ranked from the lists: its levels in WebAssembly (the corpus's chunk ids are dense).
    if (fromLists) expect(LEAD_MERGE.levels > levelsBefore, 'levels in WebAssembly').toBe(true);
    LEAD_MERGE.wasm = false;
    expect(search(index, req), 'merged in JavaScript').toEqual(listed);
    LEAD_MERGE.wasm = true;
    leadBytesPath.listed = false;
    const bytes = search(index, req);
    leadBytesPath.enabled = false;
    const walked = search(index, req);
    leadBytesPath.enabled = true;
    leadBytesPath.listed = true;
    return { listed, bytes, walked, fromLists };
  }

  it('chose the corpus’s common terms', () => {
    expect(index.leadTerms()).toEqual(expect.arrayContaining(['parser', 'config', '会话']));
  });

  it.each(requests.map((r, i) => [i, r.query, r] as const))('request %i (%s) gives what walking the leads gives', (_, _q, r) => {
    const req = { ...base, ...r };
    const { listed, bytes, walked, fromLists } = three(req);
    expect(listed).toEqual(walked);
    expect(bytes).toEqual(walked);
    if (!req.query.includes('zzz')) expect(listed.hits.length, 'hits').toBeGreaterThan(0);
    // Every term listed (and not --sort time, which no ranking from leads answers): the lists answered.
    if (!req.query.includes('zzz') && req.sort !== 'time' && (req.limit ?? 10) <= 40) expect(fromLists, 'ranked from the lists').toBe(true);
    if (req.query.includes('zzz')) expect(fromLists).toBe(false);
  });

  async function appendRecord(command: string, at: string): Promise<void> {
    appendFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command, output: 'ok', cwd: '/work', ended_at: at, exit_code: 0 }) + '\n');
    await syncIndex(index, env, quiet);
  }

  it('sees records appended after the lists were written, and merges the lists of many writes', async () => {
    const rows = (): number => index.db.prepare("SELECT count(*) FROM lead_terms WHERE term = 'parser'").pluck().get() as number;
    LEAD_TERMS.maxBatches = 3;
    for (let k = 0; k < 4; k++) {
      await appendRecord(`${'parser config '.repeat(8)}new-${k}`, `2026-11-30T0${k}:00:00Z`);
      const { listed, walked, fromLists } = three({ ...base, query: 'parser config', target: 'terminal', limit: 5 });
      expect(listed).toEqual(walked);
      expect(fromLists).toBe(true);
      expect(listed.hits[0]!.snippet).toContain(`new-${k}`);
      // LEAD_TERMS.maxBatches is 3: never more rows of a term than that.
      expect(rows()).toBeLessThanOrEqual(3);
    }
  });

  it('skips the entries of chunks rewritten or deleted since', async () => {
    LEAD_TERMS.maxBatches = 1000; // not merged meanwhile
    const log = join(env.SIVTR_DATA_DIR!, 'terminals', '5151-1764400000.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    expect(JSON.parse(lines[7]!).command).toMatch(/^parser config /);
    lines[7] = lines[7]!.replace('"command":"parser config', '"command":"okapis zebras');
    writeFileSync(log, lines.join('\n'));
    await syncIndex(index, env, quiet);
    // The log's chunks were written again: their old entries are still in the lists, and are skipped.
    const stale = index.db.prepare("SELECT entries FROM lead_terms WHERE term = 'parser'").pluck().all() as Buffer[];
    const live = new Set(index.db.prepare('SELECT chunk FROM leads').pluck().all() as number[]);
    const chunks = stale.flatMap((b) => [...new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))].filter((_, k) => k % ENTRY_INTS === 0));
    expect(chunks.some((c) => !live.has(c)), 'stale entries').toBe(true);
    for (const req of [{ query: 'parser config', limit: 50 }, { query: 'parser config', target: 'terminal' }, { query: '会话' }]) {
      const { listed, walked, fromLists } = three({ ...base, ...req });
      expect(listed, req.query).toEqual(walked);
      expect(fromLists).toBe(true);
    }
    // A session deleted: its entries skipped too.
    const session = index.db.prepare("SELECT id FROM sessions WHERE source = 'claude' LIMIT 1").pluck().get() as number;
    index.transaction(() => index.deleteSession(session));
    const { listed, walked } = three({ ...base, query: 'parser config', limit: 100 });
    expect(listed).toEqual(walked);
  });
});
