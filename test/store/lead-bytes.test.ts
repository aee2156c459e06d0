// A one-shot search reads the leads as bytes (src/store/lead-bytes.ts) and counts the terms with
// indexOf over them, instead of decoding and lower-casing every lead. The counts must be the
// walk's, to the occurrence, so the page, order, totals and snippets are the same. Held three
// ways: the premise about lower-casing over every code point; the byte counts against a plain
// walk over leads written to a real index (odd characters, NULs inside parts, a match that would
// run from one lead into the next); every search of a generated corpus against the same index
// with the byte path turned off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSERT_LEAD, leadOf, memoryIndex, type IndexDb, type PartDir } from '../../src/store/index-db.js';
import { bytesCountable, FOLDS_TO_SAFE, isSafeCode, LeadBytes } from '../../src/store/lead-bytes.js';
import { leadBytesPath, search, type SearchRequest } from '../../src/store/search.js';
import { tempDir } from '../helpers/cli.js';
import { buildLeadCorpus } from '../helpers/lead-corpus.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');

describe('the premise of the byte path', () => {
  it('only A–Z, U+0130 and U+212A lower-case to a SAFE character other than themselves', () => {
    const odd: [string, string][] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const lower = c.toLowerCase();
      if (lower === c) continue;
      let safe = '';
      for (let i = 0; i < lower.length; i++) if (isSafeCode(lower.charCodeAt(i))) safe += lower[i];
      if (safe !== '' && !(cp >= 65 && cp <= 90)) odd.push([c, safe]);
    }
    expect(odd).toEqual(FOLDS_TO_SAFE);
  });

  it('takes terms of ASCII and caseless scripts only', () => {
    expect(bytesCountable(['会话', 'connection refused', 'pr1137', 'snake_case', 'こんにちは', '한국어', '「引用」'])).toBe(true);
    for (const term of ['istanbul ı', 'σίσυφος', 'ｐａｒｓｅｒ', 'café', 'a\u0000b', '']) expect(bytesCountable([term]), term).toBe(false);
  });
});

/** Occurrences of `term` in `text` as the walk counts them: each after the last, at most `cap`. */
function walkCount(text: string, term: string, cap: number): number {
  let n = 0;
  for (let at = text.indexOf(term); at !== -1 && n < cap; at = text.indexOf(term, at + term.length)) n++;
  return n;
}

describe('lead bytes', () => {
  // Chunk order is the order the leads are read in; the texts meet at their edges.
  const LEADS: string[][] = [
    ['parser config: the Parser re-parsed CONFIG.json (parserparser)', '会话记录 会话 会'],
    ['话 at the start of a lead: no match with the lead before', 'Kelvin \u212aelvin and kelvin', 'ok'],
    ['İstanbul istanbul ISTANBUL'],
    ['a part holding \u0000 a NUL: connection refused', 'connection refused'],
    ['会话: a part holding \u0000 a NUL: connection refused', 'connection refused'],
    [`${'error '.repeat(80)}warning`, 'ERROR Error error'],
    ['ｐａｒｓｅｒ fullwidth and parser', ''],
    ['', 'tok-claude-3-1 localhost:8080 "connection refused" 会'],
    ['话 pr1137 PR1137x snake_case_helpers SNAKE_CASE'],
    // Latin-1 capitals (their UTF-8 starts with C3) next to CJK: the search lower-cases C3 to E3, the first byte of 「 and of kana.
    ['ÀÉ会话Ö「引用」Ü ÃParser ÂCONFIG', 'Ã「 À会 Éｐ'],
  ];
  const TERMS = [['parser'], ['会话'], ['「引用」'], ['「'], ['会'], ['话'], ['kelvin'], ['istanbul'], ['connection refused'], ['error', 'warning'], ['pr1137', 'snake_case', '会'], ['zzz'], ['ok'], ['a']];

  let index: IndexDb;
  const dirs: PartDir[][] = [];

  beforeAll(() => {
    index = memoryIndex('test');
    index.db.prepare("INSERT INTO sessions (id, source, sid, location) VALUES (1, 'claude', 's1', 'x')").run();
    LEADS.forEach((texts, i) => {
      const dir: PartDir[] = texts.map((t, p) => [p % 2, p + 1, p % 3 === 2 ? 'tool_call' : 'user', null, t.length, p + 1]);
      dirs.push(dir);
      const lead = leadOf(dir, texts)!;
      index.db.prepare(INSERT_LEAD).run(10 + i, 1, 100 * i, lead.n, lead.dir, lead.text);
    });
  });

  afterAll(() => index?.close());

  const read = (terms: string[]): LeadBytes => LeadBytes.read(index, `SELECT ${LeadBytes.columns(terms)} FROM leads c JOIN sessions s ON s.id = c.session WHERE 1 ORDER BY c.chunk`, []);

  it('count every term as a walk over the lower-cased parts does, or leave the lead to the walk', () => {
    for (const terms of TERMS) {
      for (const kinds of [undefined, new Set(['user'])]) {
        const leads = read(terms);
        expect(leads.count).toBe(LEADS.length);
        const hits = leads.hits(terms, kinds, 64);
        LEADS.forEach((texts, li) => {
          const text = texts.join('\u0000');
          const walked = (/\u0130/.test(text) && terms.some((t) => t.includes('i'))) || (/\u212a/.test(text) && terms.some((t) => t.includes('k'))) || (/[^\u0000-\u007f]/.test(text) && texts.some((t) => t.includes('\u0000')));
          const got = hits[li];
          // Only a lead holding U+0130, U+212A or (beyond ASCII) a NUL inside a part is left to the walk.
          if (got === undefined) {
            expect(walked, `${terms} lead ${li} walked`).toBe(true);
            return;
          }
          const want: { n: number; counts: number[] }[] = [];
          texts.forEach((t, p) => {
            if (kinds && !kinds.has(dirs[li]![p]![2])) return;
            const counts = terms.map((term) => walkCount(t.toLowerCase(), term, 64));
            if (counts.some((c) => c > 0)) want.push({ n: p + 1, counts });
          });
          const have = got === null ? [] : got!.dir.map((d, k) => ({ n: d[1], counts: got!.counts[k]! }));
          expect(have, `${terms} in lead ${li}`).toEqual(want);
          if (got) for (const d of got.dir) expect(d).toEqual(dirs[li]!.find((e) => e[1] === d[1]));
        });
      }
    }
  });

  it('leaves to the walk the leads holding U+0130 or U+212A (for a term holding i or k), and those beyond ASCII holding a NUL inside a part where a term occurs', () => {
    expect(read(['kelvin']).hits(['kelvin'], undefined, 64)[1]).toBeUndefined();
    expect(read(['istanbul']).hits(['istanbul'], undefined, 64)[2]).toBeUndefined();
    // U+212A matters to a term holding `k` only.
    expect(read(['会']).hits(['会'], undefined, 64)[1]).toBeNull();
    expect(read(['话']).hits(['话'], undefined, 64)[1]).toEqual({ dir: [dirs[1]![0]], counts: [[1]] });
    // An ASCII lead is cut by its directory, a NUL inside a part or not; one beyond ASCII by its NULs.
    expect(read(['connection refused']).hits(['connection refused'], undefined, 64)[3]).toEqual({ dir: dirs[3], counts: [[1], [1]] });
    expect(read(['connection refused']).hits(['connection refused'], undefined, 64)[4]).toBeUndefined();
    // No occurrence at all: nothing to walk for.
    expect(read(['parser']).hits(['parser'], undefined, 64)[3]).toBeNull();
    // The lead after one ending in 会 starts with 话: no match across them.
    expect(read(['会话']).hits(['会话'], undefined, 64)[8]).toBeNull();
  });

  it('caps a count as the walk does', () => {
    const hits = read(['error']).hits(['error'], undefined, 64);
    expect(hits[5]!.counts).toEqual([[64], [3]]);
  });

  it('gives each lead’s directory and text as stored', () => {
    const leads = read(['会话']);
    LEADS.forEach((texts, li) => {
      const lead = leads.lead(li);
      expect(lead.firstUnit).toBe(100 * li);
      expect(lead.text).toBe(texts.join('\u0000'));
      expect(lead.dir).toEqual(dirs[li]);
    });
    // The ASCII-folded text is for counting; what is shown is the text as written.
    expect(read(['parser']).lead(0).text).toBe(LEADS[0]!.join('\u0000'));
  });
});

/** Texts that reach every corner of lower-casing, of NULs and of what a word is. */
const ODD_TEXTS = [
  'parser config: the Parser re-parsed CONFIG.json (parserparser)',
  'İstanbul ΣΊΣΥΦΟΣ σίσυφος ς — lower-casing that changes lengths',
  '会话记录 会话 会 snake_case_helpers PR1137 pr1137x',
  'Kelvin \u212aelvin kelvin ｐａｒｓｅｒ',
  'a NUL \u0000 inside: connection refused',
  `${'error '.repeat(80)}warning`,
  '话 tok-claude-3-1 localhost:8080 "connection refused" 会',
  'ÀÉ会话Ö「引用」Ü ÃParser ÂCONFIG Ã「',
  '',
];

const base: SearchRequest = { target: 'all', query: '', field: 'content', limit: 10, now: NOW, current: [] };

const requests: Partial<SearchRequest>[] = [
  { query: '会话' },
  { query: '会话', limit: 40 },
  { query: '会' },
  { query: '话' },
  { query: '会话', kinds: ['user'] },
  { query: '会话', target: 'terminal' },
  { query: '会话', field: 'command' },
  { query: 'parser config' },
  { query: 'Parser CONFIG', limit: 30 },
  { query: 'kelvin' },
  { query: 'istanbul' },
  { query: '"connection refused"' },
  { query: 'error warning', limit: 25 },
  { query: 'PR1137' },
  { query: 'snake_case' },
  { query: 'tok-claude-3-1' },
  { query: 'the' },
  { query: 'a' },
  { query: 'parser', kinds: ['tool_call'] },
  { query: 'parser config', sort: 'time' },
  { query: 'parser', terms: ['parser', '会话'], operator: 'and' },
  { query: 'parser', terms: ['parser', '会话'], operator: 'or' },
  { query: '会话 parser session', limit: 20 },
  { query: '「引用」' },
  { query: '「 config' },
];

describe('search with the leads read as bytes', () => {
  let tmp: ReturnType<typeof tempDir>;
  let index: IndexDb;

  beforeAll(async () => {
    ({ tmp, index } = await buildLeadCorpus('sivtr-lead-bytes-', ODD_TEXTS, 400));
  });

  afterAll(() => {
    leadBytesPath.enabled = true;
    index?.close();
    tmp?.cleanup();
  });

  it.each(requests.map((r, i) => [i, r.query, r] as const))('request %i (%s) gives what walking the leads gives', (_, _q, r) => {
    const req = { ...base, ...r };
    leadBytesPath.enabled = true;
    const used = leadBytesPath.used;
    const bytes = search(index, req);
    const byBytes = leadBytesPath.used > used;
    leadBytesPath.enabled = false;
    const walked = search(index, req);
    leadBytesPath.enabled = true;
    expect(bytes).toEqual(walked);
    if (['会话', '会', 'parser config', 'error warning', '"connection refused"'].includes(req.query)) expect(byBytes, 'read as bytes').toBe(true);
    // İstanbul lower-cases to i̇stanbul (i, U+0307, …), which `istanbul` does not match: no hit by either path.
    if (req.query !== 'istanbul') expect(bytes.hits.length).toBeGreaterThan(0);
  });

  it('ranks a two-character CJK word and common words from the leads alone, and reads on where a chunk must be read', () => {
    const how = (r: Partial<SearchRequest>): 'ranked' | 'read on' | 'neither' => {
      const before = { ...leadBytesPath };
      const req = { ...base, ...r };
      const bytes = search(index, req);
      const after = { ...leadBytesPath };
      leadBytesPath.enabled = false;
      expect(bytes, JSON.stringify(r)).toEqual(search(index, req));
      leadBytesPath.enabled = true;
      return after.ranked > before.ranked ? 'ranked' : after.readOn > before.readOn ? 'read on' : 'neither';
    };
    for (const query of ['会话', 'parser config', 'error warning', 'parser', 'Parser CONFIG']) expect(how({ query, target: 'agent' }), query).toBe('ranked');
    expect(how({ query: '会话', kinds: ['user'], target: 'claude' })).toBe('ranked');
    expect(how({ query: '会话', target: 'agent', limit: 5000 })).toBe('read on');
    expect(how({ query: 'parser config', target: 'agent', sort: 'time' })).toBe('read on');
    // The terminal log's leads hold U+0130, U+212A and NULs inside parts: TermScan walks those.
    expect(how({ query: '会话' })).toBe('neither');
    expect(how({ query: 'σίσυφος' })).toBe('neither');
  });

  it('ranks without a ranker over the leads when the terms’ keys are in a few chunks, with the same answer', () => {
    const req = { ...base, query: 'tok-claude-3-1', target: 'agent' };
    // A ranker made over the leads read as bytes counts a level either ranked or read on.
    const rankers = (): number => leadBytesPath.ranked + leadBytesPath.readOn;
    const before = rankers();
    const few = search(index, req);
    expect(rankers(), 'a ranker over the leads').toBe(before);
    expect(few.hits.length).toBeGreaterThan(0);
    const saved = leadBytesPath.fewChunks;
    leadBytesPath.fewChunks = 0;
    try {
      const bytes = search(index, req);
      expect(rankers(), 'the same search, no chunk count too few').toBeGreaterThan(before);
      expect(few).toEqual(bytes);
    } finally {
      leadBytesPath.fewChunks = saved;
    }
  });

  it('leaves terms beyond ASCII and caseless scripts to the walk', () => {
    const used = leadBytesPath.used;
    expect(search(index, { ...base, query: 'σίσυφος' }).hits.length).toBeGreaterThan(0);
    expect(leadBytesPath.used).toBe(used);
  });
});
