// Terminal records are stored without unit rows (src/store/record-chunks.ts): their metadata
// lives in their chunks and their unit ids come from the chunk's id. This holds every search
// over them to the answers of the unit-row storage every other source uses: the same logs are
// indexed both ways, in the same process, and every query and filter must give the same result.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSource } from '../../src/memory/terminal-source.js';
import type { Unit } from '../../src/memory/types.js';
import { unitDoc } from '../../src/store/docs.js';
import { memoryIndex, openIndex, type IndexDb } from '../../src/store/index-db.js';
import { search, type SearchRequest } from '../../src/store/search.js';
import { syncIndex } from '../../src/store/sync.js';
import { tempDir } from '../helpers/cli.js';
import { writeLog, type RawEntry } from '../helpers/terminal-log.js';

const quiet = { total() {}, step() {}, done() {} };
const NOW = Date.parse('2026-12-01T00:00:00Z');

/**
 * Logs that reach every corner of a record: blank parts, long output, odd times, no cwd, sivtr's own commands, thousands of
 * records, and a character whose lower case is longer (İ), which makes a chunk's terms be counted part by part.
 */
function writeLogs(data: string): void {
  const first: (RawEntry | string)[] = [
    { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Failed to connect: Connection refused', cwd: '/srv/app', ended_at: '2026-11-20T09:00:00Z', exit_code: 7 },
    { prompt: '', command: 'grep -rn 会话 src/', output: 'src/i18n.ts:3: 会话记录', cwd: '/srv/app/sub', ended_at: '2026-11-21T09:00:00.250Z', exit_code: 0 },
    { prompt: '$ ', command: 'git log -1', output: 'a1b2c3d Merge PR1137: snake_case_helpers (İstanbul)', ended_at: '2026-11-22T10:00:00+02:00' },
    { prompt: '$ ', command: '', output: '' }, // keeps its position, not a record
    'not json at all',
    { prompt: '$ ', command: '   ', output: 'output of a blank command: connection reset', cwd: '/srv/other', ended_at: '2026-11-29T23:59:59Z', exit_code: 1 },
    { prompt: '$ ', command: 'sivtr show 1', output: 'curl: (7) Failed to connect: Connection refused', cwd: '/srv/app', ended_at: '2026-11-23T09:00:00Z', exit_code: 0 },
    { prompt: '$ ', command: 'cat big.log', output: `${'head line ok\n'.repeat(3000)}the needle in the middle\n${'tail line ok\n'.repeat(3000)}final refused line`, cwd: '/srv/app', ended_at: '2026-11-24T09:00:00Z', exit_code: 0 },
    { prompt: '$ ', command: 'echo "two\nlines"', output: '   \n  ', ended_at: 'yesterday-ish', exit_code: 0 },
  ];
  writeLog(data, '1111-1764400000', first);
  // Enough records to fill several chunks; then thousands of tiny ones.
  const many: RawEntry[] = [];
  for (let i = 0; i < 2500; i++) {
    many.push({ prompt: `me@box:~/p${i % 7}$ `, command: ['npm test', 'make', 'ls'][i % 3]!, output: i % 97 === 0 ? `Connection refused (${i})` : `ok ${i} ${'x'.repeat(i % 40)}`, cwd: `/home/me/p${i % 7}`, ended_at: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(), exit_code: i % 5 === 0 ? 1 : 0 });
  }
  writeLog(data, '2222-1764400001', many);
  writeLog(data, '3333-1764400002', Array.from({ length: 4500 }, (_, i) => ({ prompt: '', command: i % 900 === 0 ? 'ok refused' : 'ls', output: '', exit_code: i % 2 })));
}

/** The same logs written the way every other source's units are: one row per record. */
async function indexAsUnitRows(env: NodeJS.ProcessEnv): Promise<IndexDb> {
  const index = memoryIndex('test');
  const plan = await terminalSource.index.plan({ env, persistent: false, previous: '', mark: () => undefined });
  for (const s of plan.sessions) {
    const change = await s.update();
    if (change.kind !== 'read') throw new Error('unreadable log');
    const row = index.upsertSession({ source: 'terminal', id: change.session.id, title: null, cwd: null, updatedAt: change.session.updatedAt ?? null, location: change.session.location });
    index.appendUnits(row, change.units.map((u: Unit) => unitDoc(u)));
  }
  return index;
}

const base: SearchRequest = { target: 'terminal', query: '', field: 'content', limit: 50, now: NOW, current: [] };

const requests: Partial<SearchRequest>[] = [
  { query: 'connection refused' },
  { query: 'connection refused', limit: 3 },
  { query: 'refused' },
  { query: 'PR1137' },
  { query: 'snake_case' },
  { query: '会话' },
  { query: 'needle' }, // in the middle of a long output: not indexed, either way
  { query: 'final refused' },
  { query: 'ok' },
  { query: 'npm' },
  { query: 'curl', field: 'command' },
  { query: 'refused', field: 'output' },
  { query: 'me@box', field: 'input' },
  { query: 'make', field: 'title' },
  { query: 'refused', status: 'failure' },
  { query: 'refused', status: 'success' },
  { query: 'git', status: 'unknown' },
  { query: '', status: 'failure' },
  { query: '' },
  { query: 'refused', since: Date.parse('2026-11-02T00:00:00Z'), until: Date.parse('2026-11-21T00:00:00Z') },
  { query: '', since: Date.parse('2026-11-20T00:00:00Z') },
  { query: 'refused', kinds: ['output'] },
  { query: '', kinds: ['prompt'] },
  { query: 'connection', terms: ['connection', 'reset'], operator: 'or' },
  { query: 'connection', terms: ['connection', 'refused'], operator: 'and' },
  { query: 'refused', sort: 'time' },
  { query: 'refused', match: /\(\d+7\)/ },
  { query: 'refused', includeSelf: true },
  { query: 'refused', inScope: (cwd) => cwd !== null && cwd.startsWith('/srv/app') },
  { query: 'refused', target: 'all' },
  { query: 'refused', target: 'agent' },
];

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let records: IndexDb;
let rows: IndexDb;

beforeAll(async () => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  writeLogs(data);
  env = { HOME: join(tmp.path, 'home'), SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') };
  records = memoryIndex('test');
  await syncIndex(records, env, quiet, { sources: [terminalSource] });
  rows = await indexAsUnitRows(env);
});

afterAll(() => {
  records?.close();
  rows?.close();
  tmp?.cleanup();
});

describe('terminal records stored without unit rows', () => {
  it('are stored in record chunks, several per log, and no unit row', () => {
    expect(records.db.prepare('SELECT count(*) FROM units').pluck().get()).toBe(0);
    expect(records.db.prepare('SELECT count(*) FROM chunks WHERE records IS NOT NULL').pluck().get()).toBe(4); // the long log fills two
    // Thousands of tiny records share one chunk, as they would as unit rows.
    const counts = records.db.prepare("SELECT c.nparts FROM chunks c JOIN sessions s ON s.id = c.session WHERE s.sid = '3333-1764400002' ORDER BY c.lo").pluck().all();
    expect(counts).toEqual([4500]);
    expect(rows.db.prepare('SELECT count(*) FROM units').pluck().get()).toBe(7 + 2500 + 4500);
    expect(records.totals()).toEqual(rows.totals());
  });

  it.each(requests.map((r, i) => [i, r] as const))('request %i gives what unit rows give: hits, refs, order, snippets, totals', (_, r) => {
    const req = { ...base, ...r };
    const got = search(records, req);
    expect(got).toEqual(search(rows, req));
    if (req.query !== '' && req.query !== 'needle' && req.status === undefined && req.since === undefined && req.target !== 'agent') expect(got.hits.length).toBeGreaterThan(0);
  });

  it('a persistent index gives the same answers, and a grown log appends only its new records', async () => {
    const { index } = openIndex(join(tmp.path, 'index.db'), 'test');
    try {
      await syncIndex(index, env, quiet, { sources: [terminalSource] });
      const some = requests.filter((_, i) => i % 3 === 0);
      for (const r of some) expect(search(index, { ...base, ...r })).toEqual(search(records, { ...base, ...r }));
      appendFileSync(join(tmp.path, 'data', 'terminals', '1111-1764400000.jsonl'), [
        JSON.stringify({ prompt: '$ ', command: 'make zebra', output: 'zebra: Connection refused', cwd: '/srv/app', ended_at: '2026-11-30T09:00:00Z', exit_code: 2 }),
        JSON.stringify({ prompt: '$ ', command: 'make okapi', output: 'okapi built', ended_at: '2026-11-30T09:01:00Z', exit_code: 0 }),
      ].join('\n') + '\n');
      const stats = await syncIndex(index, env, quiet, { sources: [terminalSource] });
      expect(stats).toMatchObject({ filesAppended: 1, filesReparsed: 0, linesParsed: 2, unitsWritten: 2 });
      const grown = await indexAsUnitRows(env);
      try {
        for (const r of [...some, { query: 'zebra' }, { query: 'okapi', status: 'success' as const }]) expect(search(index, { ...base, ...r })).toEqual(search(grown, { ...base, ...r }));
        expect(search(index, { ...base, query: 'zebra' }).hits.map((h) => h.ref)).toEqual(['terminal/1111-176/9']);
      } finally {
        grown.close();
      }
    } finally {
      index.close();
    }
  });
});
