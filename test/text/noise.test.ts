// Each kind of run-to-run noise is masked with its placeholder; what the output said is kept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeMasked, maskNoise } from '../../src/text/noise.js';
import { ROOT } from '../helpers/cli.js';

const m = (text: string): string => maskNoise(text).text;

describe('maskNoise', () => {
  it.each([
    ['ISO timestamps', 'at 2026-12-01T09:28:26.459Z done', 'at ⟨time⟩ done'],
    ['log timestamps with zone', '2026-12-01 09:28:26,123 +0100 INFO up', '⟨time⟩ INFO up'],
    ['date(1)', 'Tue Dec  1 11:44:47 UTC 2026', '⟨time⟩'],
    ['clock times', '   Start at  12:29:47', '   Start at  ⟨time⟩'],
    ['dates', 'released 2026-11-30', 'released ⟨date⟩'],
    ['durations', 'Duration  820ms (transform 35ms) in 1.03s, took 3 seconds, 2m 3s', 'Duration  ⟨duration⟩ (transform ⟨duration⟩) in ⟨duration⟩, took ⟨duration⟩, ⟨duration⟩'],
    ['go and cargo timings', 'FAIL\texample.com/calc\t0.003s\n--- FAIL: TestAdd (0.00s)', 'FAIL\texample.com/calc\t⟨duration⟩\n--- FAIL: TestAdd (⟨duration⟩)'],
    ['pids', 'Process Group PGID: 27961, pid=41, PID 7', 'Process Group PGID: ⟨pid⟩, pid=⟨pid⟩, PID ⟨pid⟩'],
    ['thread ids of a Rust panic', "thread 'tests::adds' (10976) panicked at src/lib.rs:9:9:", "thread 'tests::adds' (⟨pid⟩) panicked at src/lib.rs:9:9:"],
    ['temp paths', 'RUN  v4.1.12 /tmp/tmp.8bG97jNxQT/vitest', 'RUN  v4.1.12 ⟨tmp⟩/vitest'],
    ['macOS temp paths', '/var/folders/x1/abc/T/jest_dx/cache', '⟨tmp⟩/cache'],
    ['uuids', 'session 3e5c5f9d-9680-4358-ab70-67ffa64d4abe ok', 'session ⟨uuid⟩ ok'],
    ['hashes and hex ids', 'commit 59807616e1fa25 at 0x7ffd5a2b, deps/calc-c6626fb655a8d231', 'commit ⟨hex⟩ at ⟨hex⟩, deps/calc-⟨hex⟩'],
    ['colours', '\x1b[31mFAIL\x1b[0m a.test.ts', 'FAIL a.test.ts'],
    ['carriage-return frames', 'downloading 10%\rdownloading 55%\rdownloaded\nnext', 'downloaded\nnext'],
    ['spinners', '⠋ Building\n⠙ Building', 'Building\nBuilding'],
    ['progress bars', 'build [########------] 40% 4/10\nok', '⟨progress⟩\nok'],
  ])('%s', (_what, input, want) => {
    expect(m(input)).toBe(want);
  });

  it('keeps what the output said: counts, versions, line numbers, words', () => {
    const kept = [
      'Tests  2 failed | 2 passed (4)',
      ' ❯ test/math.test.js:2:38',
      'src/a.ts(1,14): error TS2322: Type',
      'RUN  v4.1.12',
      'tests/test_math.py F.                                                    [ 50%]',
      'deadbeef cafe 1234567 abcdef',
      'port 8080, 3 files, 10 items',
    ];
    for (const line of kept) expect(m(line)).toBe(line);
  });

  it('two real runs of one passing suite differ only in noise', () => {
    const vitest = readFileSync(join(ROOT, 'fixtures', 'runners', 'vitest', 'before.txt'), 'utf8');
    const again = vitest.replace('820ms', '1.2s').replace('12:29:47', '12:31:02').replace('/tmp/tmp.8bG97jNxQT/', '/tmp/tmp.Zz9/').replace(/ 14ms$/m, ' 9ms');
    expect(m(again)).toBe(m(vitest));
    expect(describeMasked(maskNoise(vitest).counts)).toBe('1 time, 1 temp path, 12 durations');
  });
});
