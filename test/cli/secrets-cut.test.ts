// A one-line view (runs, errors, search titles and excerpts) cuts long commands and outputs. A
// secret cut in half by that ellipsis no longer matches its rule, so half of it used to be printed:
// the cut must come after masking, and an excerpt never starts or ends inside a word.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const TOKEN = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
const HALF = TOKEN.slice(0, 6);
const COMMAND = `echo deploying now; curl -H "Authorization: token ${TOKEN}" https://api.example.com`;
const OUTPUT = `deploying now with a long long long long long long long long long long line of words, then ${TOKEN} and more`;
let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  writeLog(join(tmp.path, 'data'), 't1', [
    { prompt: '$ ', command: COMMAND, output: `${OUTPUT}\ncurl: (6) Could not resolve host: ${TOKEN}`, exit_code: 6, ended_at: '2026-11-29T10:00:00Z' },
    { prompt: '$ ', command: COMMAND, output: 'deploying now\nok', exit_code: 0, ended_at: '2026-11-29T10:01:00Z' },
  ]);
});
afterAll(() => tmp.cleanup());

describe('a secret cut by a one-line view', () => {
  for (const args of [['runs'], ['errors'], ['diff', '2', '1'], ['search', 'deploying'], ['search', 'deploying', '--format', 'timeline']]) {
    it(`sivtr ${args.join(' ')} prints no part of it`, () => {
      const r = runCli(args, { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('deploying');
      expect(r.stdout).not.toContain(HALF);
      expect(r.stderr).toMatch(/masked \d+ secrets? \(github-token\)/);
    });
  }
});

describe('a search excerpt', () => {
  it('widens to a token it would cut, so printing can still mask it whole', async () => {
    const { queryTerms, snippet } = await import('../../src/store/query.js');
    const text = `${'word '.repeat(30)}refused ${'x'.repeat(60)} ${TOKEN} tail ${'word '.repeat(30)}`;
    for (let pad = 0; pad < 50; pad += 7) {
      const s = snippet('a'.repeat(pad) + ' ' + text, queryTerms('refused'));
      const cut = s.match(/ghp_[A-Za-z0-9]*/)?.[0];
      if (cut !== undefined) expect(cut).toBe(TOKEN);
    }
  });
});
