import { describe, expect, it } from 'vitest';
import { fitToBudget, parseBudget } from '../../src/memory/budget.js';

function runnerOutput(): string {
  const lines = ['> app@1.0.0 test', '> vitest run', ''];
  for (let i = 0; i < 300; i++) lines.push(` ✓ test/unit/mod${i}.test.ts (4 tests) ${i % 50}ms`);
  for (let i = 0; i < 50; i++) lines.push('npm warn deprecated inflight@1.0.6: This module is not supported');
  lines.push(' FAIL  test/auth/token.test.ts > refreshes', 'AssertionError: expected 401 to be 200', '  at test/auth/token.test.ts:42:17', '  at run (node_modules/vitest/x.js:1:1)');
  for (let i = 0; i < 200; i++) lines.push(` ✓ test/more/m${i}.test.ts (2 tests) 3ms`);
  lines.push('', ' Test Files  1 failed | 500 passed (501)', '      Tests  1 failed | 1800 passed (1801)', '   Duration  12.3s');
  return lines.join('\n');
}

describe('parseBudget', () => {
  it('reads tokens (estimated at 4 characters) and characters', () => {
    expect(parseBudget('2k')).toEqual({ chars: 8000, label: '2000 tokens (estimated)' });
    expect(parseBudget('500')).toEqual({ chars: 2000, label: '500 tokens (estimated)' });
    expect(parseBudget('8000c')).toEqual({ chars: 8000, label: '8000 characters' });
    expect(parseBudget('8kc').chars).toBe(8000);
  });
  it('refuses what is not a budget, as a usage error', () => {
    for (const bad of ['', 'lots', '2m', '-5', '0']) expect(() => parseBudget(bad), bad).toThrow(/budget/);
  });
});

describe('fitToBudget', () => {
  const text = runnerOutput();

  it('returns a text that fits as it is', () => {
    expect(fitToBudget('a\nb', parseBudget('1k'), 'terminal/x/1/p3')).toEqual({ text: 'a\nb', cut: false, keptLines: 2, totalLines: 2 });
  });

  it('keeps the failure with its context, the head, the summary, and collapses repeats, within the budget', () => {
    const budget = parseBudget('300');
    const r = fitToBudget(text, budget, 'terminal/abc12345/7/p3');
    expect(r.cut).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(budget.chars);
    for (const line of ['> app@1.0.0 test', ' FAIL  test/auth/token.test.ts > refreshes', 'AssertionError: expected 401 to be 200', '  at test/auth/token.test.ts:42:17', '      Tests  1 failed | 1800 passed (1801)', '   Duration  12.3s']) {
      expect(r.text.split('\n')).toContain(line);
    }
    expect(r.text).toContain('npm warn deprecated inflight@1.0.6: This module is not supported  [×50]');
    expect(r.text).toMatch(/\[… \d+ (?:similar lines|lines left out) …\]/);
    expect(r.text.split('\n').at(-1)).toMatch(/^\[budget 300 tokens \(estimated\): kept \d+ of 561 lines, left out \d+ \(\d+ characters in all\) — the whole text: sivtr show terminal\/abc12345\/7\/p3\]$/);
  });

  it('at a tiny budget still keeps the failing line and the last lines, never more than the budget', () => {
    for (const b of ['100', '400c', '250c']) {
      const budget = parseBudget(b);
      const r = fitToBudget(text, budget, 'terminal/abc12345/7/p3');
      expect(r.text.length, b).toBeLessThanOrEqual(budget.chars);
    }
    const r = fitToBudget(text, parseBudget('100'), 'terminal/abc12345/7/p3');
    expect(r.text).toContain(' FAIL  test/auth/token.test.ts > refreshes');
    expect(r.text).toContain('   Duration  12.3s');
  });

  it('cuts a very long line to its start and end', () => {
    const long = 'x'.repeat(5000) + 'END';
    const r = fitToBudget(`${long}\n${'y\n'.repeat(2000)}`, parseBudget('2000c'), undefined);
    expect(r.text).toMatch(/^x+ \[… \d+ chars …\] x+END$/m);
  });
});
