// Words every record holds: the page is filled from the leads (commands here) and a chunk is
// inflated only while one of its units could still reach the page. The page is the one reading
// every chunk gives, in BM25's order, `total` then says "at least", and the answers are the same
// without the index.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const LOG = 'b0b0b0b0';
const RECORDS = 400;
let tmp: { path: string; cleanup: () => void };
let env: NodeJS.ProcessEnv;

/**
 * Every output holds both words among other text (so every record holds them, and the records
 * fill several chunks); every 50th command holds both words too, the older ones in a shorter
 * command (BM25 ranks them above the newer, against the newer-first tie-break); record 25's
 * command holds one of them.
 */
function command(i: number): string {
  if (i % 50 === 0) return `parser config${' check'.repeat(i / 50)}`;
  if (i === 25) return 'parser check';
  return `make step${i}`;
}

function output(i: number): string {
  const filler = `line ${i} of the build: compiled modules, wrote bundles, ran the linters and the formatter. `;
  return `${filler.repeat(3)}the parser read its config.\n${filler.repeat(2)}`;
}

beforeAll(() => {
  tmp = tempDir('sivtr-broad-');
  const data = join(tmp.path, 'data');
  const start = Date.parse('2026-11-20T10:00:00Z');
  writeLog(
    data,
    LOG,
    Array.from({ length: RECORDS }, (_, i) => ({ prompt: '$ ', command: command(i), output: output(i), exit_code: 0, cwd: '/work', ended_at: new Date(start + i * 60_000).toISOString() })),
  );
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterAll(() => tmp.cleanup());

type Json = { hits: { ref: string; part: number; kind: string; all_terms: boolean }[]; total: number; total_at_least?: boolean; coverage?: { least: number; of: number } };

function search(...args: string[]): Json {
  const r = runCli(['search', 'terminal', ...args, '--format', 'json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Json;
}
/** Which records the hits are (a ref's index counts from 1). */
const indexes = (j: Json): number[] => j.hits.map((h) => Number(h.ref.split('/').at(-1)) - 1);

describe('search for words every record holds', () => {
  it('ranks the commands holding both words first, shorter above newer, then the one holding one word', () => {
    const all = search('parser config', '--limit', '20');
    expect(indexes(all).slice(0, 9)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 25]);
    expect(all.hits.slice(0, 9).every((h) => h.kind === 'command')).toBe(true);
    expect(all.hits.every((h) => h.all_terms)).toBe(true);
  });

  it('a short page is the start of the long one; its total counts what it read, and says so', () => {
    const long = search('parser config', '--limit', String(RECORDS + 10));
    expect(long.total).toBe(RECORDS);
    expect(long.total_at_least).toBeUndefined();
    const short = search('parser config', '--limit', '5');
    expect(indexes(short)).toEqual(indexes(long).slice(0, 5));
    expect(short.total_at_least).toBe(true);
    expect(short.total).toBeGreaterThanOrEqual(8);
    expect(short.total).toBeLessThan(RECORDS);
    const one = search('parser', '--limit', '3');
    expect(indexes(one)).toEqual(indexes(search('parser', '--limit', String(RECORDS + 10))).slice(0, 3));
    expect(one.total_at_least).toBe(true);
    const text = runCli(['search', 'terminal', 'parser config', '--limit', '5'], { env });
    expect(text.stderr).toMatch(/5 of at least \d+ hits holding every word — use --limit N for more/);
  });

  it('a word only the outputs hold is ranked from the outputs, every chunk read', () => {
    const built = search('bundles', '--limit', '3');
    expect(built.hits.every((h) => h.kind === 'output')).toBe(true);
    const all = search('bundles', '--limit', String(RECORDS + 10));
    expect(all.total).toBe(RECORDS);
    expect(all.total_at_least).toBeUndefined();
    expect(indexes(built)).toEqual(indexes(all).slice(0, 3));
  });

  it('gives the same answers without the index', () => {
    for (const args of [['parser config', '--limit', '5'], ['parser config', '--limit', '20'], ['parser', '--limit', '3'], ['parser config', '--sort', 'time', '--limit', '4'], ['config bundles', '--limit', '6']]) {
      for (const format of ['json', 'full']) {
        const indexed = runCli(['search', 'terminal', ...args, '--format', format, '--color', 'never'], { env });
        const direct = runCli(['search', 'terminal', ...args, '--format', format, '--color', 'never', '--no-index'], { env });
        expect(indexed.code, indexed.stderr).toBe(0);
        expect(direct.stdout, `${args.join(' ')} ${format}`).toBe(indexed.stdout);
        expect(direct.stderr, `${args.join(' ')} ${format}`).toBe(indexed.stderr);
      }
    }
  });
});
