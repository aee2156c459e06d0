// A query of several words without an operator ranks by coverage: the units holding every word,
// then those holding all but one, and so on, each level ranked on its own; a level is read only
// when the page needs it, and `total` says down to which level it counted. The same answers
// without the index.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const LOG = 'c0c0c0c0';
let tmp: { path: string; cleanup: () => void };
let env: NodeJS.ProcessEnv;

/** Outputs one a minute from 10:00, each under the command `run`, which holds none of the words. */
const OUTPUTS = [
  'alpha beta gamma', // 1: every word
  'alpha beta', // 2: two of three
  'gamma gamma gamma gamma gamma gamma', // 3: one word, the rarest, many times
  'alpha one',
  'alpha two',
  'alpha three',
  'alpha four',
  'beta five',
  'beta six',
  'beta seven',
  'gamma, beta and alpha again', // 11: every word
];

beforeAll(() => {
  tmp = tempDir('sivtr-coverage-');
  const data = join(tmp.path, 'data');
  writeLog(
    data,
    LOG,
    OUTPUTS.map((output, i) => ({ prompt: '$ ', command: 'run', output, exit_code: 0, cwd: '/work', ended_at: `2026-11-20T10:${String(i).padStart(2, '0')}:00Z` })),
  );
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterAll(() => tmp.cleanup());

type Json = { hits: { ref: string; all_terms: boolean }[]; total: number; coverage?: { least: number; of: number } };

function search(...args: string[]): Json {
  const r = runCli(['search', 'terminal', ...args, '--format', 'json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Json;
}
const indexes = (j: Json): number[] => j.hits.map((h) => Number(h.ref.split('/').at(-1)));

describe('search by coverage', () => {
  it('every word first, then all but one, then one word — a unit with more of the words outranks a better score with fewer', () => {
    const all = search('alpha beta gamma', '--limit', '20');
    expect(indexes(all).slice(0, 3).sort((a, b) => a - b)).toEqual([1, 2, 11]);
    expect(indexes(all).slice(0, 2).sort((a, b) => a - b)).toEqual([1, 11]);
    expect(indexes(all)[2]).toBe(2);
    // Record 3 holds only the rarest word, six times: it scores above record 2 on BM25, but holds fewer words.
    expect(indexes(all).indexOf(3)).toBeGreaterThan(indexes(all).indexOf(2));
    expect(all.total).toBe(11);
    expect(all.coverage).toBeUndefined();
    expect(all.hits.map((h) => h.all_terms)).toEqual([true, true, ...new Array(9).fill(false)]);
  });

  it('reads a lower level only when the page needs it, and says what the total counted', () => {
    const top = search('alpha beta gamma', '--limit', '1');
    expect(top.total).toBe(2);
    expect(top.coverage).toEqual({ least: 3, of: 3 });
    const three = search('alpha beta gamma', '--limit', '3');
    expect(indexes(three)[2]).toBe(2);
    expect(three.total).toBe(3);
    expect(three.coverage).toEqual({ least: 2, of: 3 });
    // A longer page starts with the shorter one.
    expect(indexes(search('alpha beta gamma', '--limit', '20')).slice(0, 3)).toEqual(indexes(three));
    const text = runCli(['search', 'terminal', 'alpha beta gamma', '--limit', '1'], { env });
    expect(text.stderr).toContain('1 of 2 hits holding every word — use --limit N for more');
    const fewer = runCli(['search', 'terminal', 'alpha beta gamma', '--limit', '3'], { env });
    expect(fewer.stderr).toContain('3 of 3 hits holding at least 2 of the 3 words');
  });

  it('--sort time orders each level newest first', () => {
    expect(indexes(search('alpha beta gamma', '--limit', '20', '--sort', 'time'))).toEqual([11, 1, 2, 10, 9, 8, 7, 6, 5, 4, 3]);
  });

  it('--terms without an operator ranks by coverage too; --operator or keeps every unit holding any term', () => {
    expect(search('--terms', '["alpha","gamma"]', '--limit', '2').coverage).toEqual({ least: 2, of: 2 });
    const any = search('--terms', '["alpha","gamma"]', '--operator', 'or', '--limit', '2');
    expect(any.coverage).toBeUndefined();
    expect(any.total).toBe(8);
  });

  it('gives the same answers without the index', () => {
    for (const args of [['alpha beta gamma', '--limit', '1'], ['alpha beta gamma', '--limit', '3'], ['alpha beta gamma', '--limit', '20'], ['alpha beta gamma', '--sort', 'time', '--limit', '5'], ['gamma alpha']]) {
      for (const format of ['json', 'full']) {
        const indexed = runCli(['search', 'terminal', ...args, '--format', format, '--color', 'never'], { env });
        const direct = runCli(['search', 'terminal', ...args, '--format', format, '--color', 'never', '--no-index'], { env });
        expect(direct.stdout, `${args.join(' ')} ${format}`).toBe(indexed.stdout);
        expect(direct.stderr, `${args.join(' ')} ${format}`).toBe(indexed.stderr);
      }
    }
  });
});
