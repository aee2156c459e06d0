// Each runner's pair in fixtures/runners/ (real outputs, except go test: hand-made, see NOTES.md):
// what failed before, what fails after, and the file:line of each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareReports, parseTestReport } from '../../src/text/test-report.js';
import { ROOT } from '../helpers/cli.js';

const read = (runner: string, state: string): string => readFileSync(join(ROOT, 'fixtures', 'runners', runner, `${state}.txt`), 'utf8');

type Want = { runner: string; newly: [string, string][]; fixed: [string, string][]; still: [string, string][] };

/** [name, file:line] per failure, as each runner printed them. */
const PAIRS: Record<string, Want> = {
  vitest: { runner: 'vitest', newly: [['trims', 'test/text.test.js:2']], fixed: [['math > adds', 'test/math.test.js:2']], still: [['parses', 'test/text.test.js:1']] },
  jest: { runner: 'jest', newly: [['trims', 'test/text.test.js:2']], fixed: [['math › adds', 'test/math.test.js:2']], still: [['parses', 'test/text.test.js:1']] },
  pytest: { runner: 'pytest', newly: [['test_trims', 'tests/test_text.py:6']], fixed: [['test_adds', 'tests/test_math.py:2']], still: [['test_parses', 'tests/test_text.py:2']] },
  cargo: { runner: 'cargo test', newly: [['tests::trims', 'src/lib.rs:19']], fixed: [['tests::adds', 'src/lib.rs:9']], still: [['tests::parses', 'src/lib.rs:14']] },
  go: { runner: 'go test', newly: [['TestTrim', ''], ['TestTrim/spaces', 'calc_test.go:21']], fixed: [['TestAdd', 'calc_test.go:8']], still: [['TestParse', 'calc_test.go:14']] },
  tsc: {
    runner: 'tsc',
    newly: [["TS2322: Type 'number' is not assignable to type 'string'.", 'src/b.ts:5']],
    fixed: [["TS2322: Type 'string' is not assignable to type 'number'.", 'src/a.ts:1']],
    still: [["TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.", 'src/b.ts:4']],
  },
  eslint: {
    runner: 'eslint',
    newly: [["error 'nope' is not defined (no-undef)", '/tmp/tmp.8bG97jNxQT/eslint/src/b.js:1']],
    fixed: [["error 'unused' is assigned a value but never used (no-unused-vars)", '/tmp/tmp.8bG97jNxQT/eslint/src/a.js:1']],
    // `missing` moved from line 2 to line 1 when the line above it went: the same problem still
    still: [
      ["error 'missing' is not defined (no-undef)", '/tmp/tmp.8bG97jNxQT/eslint/src/a.js:1'],
      ["warning Expected '===' and instead saw '==' (eqeqeq)", '/tmp/tmp.8bG97jNxQT/eslint/src/b.js:1'],
    ],
  },
};

const pairs = (fs: { name: string; location?: string }[]): [string, string][] => fs.map((f) => [f.name, f.location ?? '']);

describe('runner outputs', () => {
  for (const [dir, want] of Object.entries(PAIRS)) {
    it(`${dir}: newly failing, fixed and still failing with file:line`, () => {
      const before = parseTestReport(read(dir, 'before'));
      const after = parseTestReport(read(dir, 'after'));
      expect(before?.runner).toBe(want.runner);
      expect(after?.runner).toBe(want.runner);
      const diff = compareReports(before!, after!);
      expect(pairs(diff.newlyFailing)).toEqual(want.newly);
      expect(pairs(diff.fixed)).toEqual(want.fixed);
      expect(pairs(diff.stillFailing)).toEqual(want.still);
    });
  }

  it('cargo test without --quiet names the same failures', () => {
    const quiet = parseTestReport(read('cargo', 'after'))!;
    const verbose = parseTestReport(read('cargo', 'after-verbose'))!;
    expect(verbose.failures).toEqual(quiet.failures);
  });

  it('tsc --pretty lines and coloured output read the same', () => {
    const pretty = "\x1b[96msrc/b.ts\x1b[0m:\x1b[93m4\x1b[0m:\x1b[93m3\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2345: \x1b[0mArgument of type 'number' is not assignable to parameter of type 'string'.\n\nFound 1 error in src/b.ts\x1b[90m:4\x1b[0m\n";
    expect(parseTestReport(pretty)).toEqual({ runner: 'tsc', failures: [{ id: "src/b.ts TS2345 Argument of type 'number' is not assignable to parameter of type 'string'.", name: "TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.", location: 'src/b.ts:4' }] });
  });

  it('output of no runner is no report', () => {
    expect(parseTestReport('hello\nworld\n')).toBeUndefined();
  });
});
