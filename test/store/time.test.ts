// Time and query parsing: the forms `--since`, `--until` and `--last` accept, and the words a
// query splits into (trigram-sized or short).
import { describe, expect, it } from 'vitest';
import { queryTerms, snippet } from '../../src/store/query.js';
import { parseDuration, parseTime } from '../../src/store/time.js';

const NOW = Date.parse('2026-11-29T15:30:00Z');

describe('parseTime', () => {
  it('accepts RFC 3339 with Z, offsets, fractions and a space separator', () => {
    expect(parseTime('2026-05-01T09:00:00Z', NOW)).toBe(Date.parse('2026-05-01T09:00:00Z'));
    expect(parseTime('2026-05-01T11:00:00+02:00', NOW)).toBe(Date.parse('2026-05-01T09:00:00Z'));
    expect(parseTime('2026-05-01T09:00:00.250z', NOW)).toBe(Date.parse('2026-05-01T09:00:00.250Z'));
    expect(parseTime('2026-05-01 09:00:00Z', NOW)).toBe(Date.parse('2026-05-01T09:00:00Z'));
  });

  it('reads a bare date as local midnight', () => {
    expect(parseTime('2026-05-01', NOW)).toBe(new Date(2026, 4, 1).getTime());
    expect(parseTime('2026-02-30', NOW)).toBeUndefined();
  });

  it('tells Unix seconds from milliseconds by length', () => {
    expect(parseTime('1764400000', NOW)).toBe(1_764_400_000_000);
    expect(parseTime('1764400000123', NOW)).toBe(1_764_400_000_123);
  });

  it('reads durations as that long ago', () => {
    expect(parseTime('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseTime('2h', NOW)).toBe(NOW - 2 * 3_600_000);
    expect(parseTime('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseTime('45s', NOW)).toBe(NOW - 45_000);
    expect(parseTime('1w', NOW)).toBe(NOW - 604_800_000);
  });

  it('knows today and yesterday (local midnight) and now', () => {
    const midnight = new Date(NOW);
    midnight.setHours(0, 0, 0, 0);
    expect(parseTime('today', NOW)).toBe(midnight.getTime());
    const before = new Date(midnight);
    before.setDate(before.getDate() - 1);
    expect(parseTime('Yesterday', NOW)).toBe(before.getTime());
    expect(parseTime('now', NOW)).toBe(NOW);
  });

  it('rejects anything else', () => {
    for (const bad of ['', 'last tuesday', '2026-13-01T00:00:00Z', '5 parsecs', '12:00', '-5m']) expect(parseTime(bad, NOW), bad).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it('accepts s, m, h, d, w and their spelled-out forms', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('15min')).toBe(900_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('3days')).toBe(259_200_000);
    expect(parseDuration('today')).toBeUndefined();
    expect(parseDuration('2026-01-01')).toBeUndefined();
  });
});

describe('queryTerms and snippet', () => {
  it('splits words, keeps quoted phrases whole, and separates short terms', () => {
    expect(queryTerms('connection refused')).toEqual({ long: ['connection', 'refused'], short: [] });
    expect(queryTerms('"connection refused" db')).toEqual({ long: ['connection refused'], short: ['db'] });
    expect(queryTerms('会话 会话记录')).toEqual({ long: ['会话记录'], short: ['会话'] });
    expect(queryTerms('  ')).toEqual({ long: [], short: [] });
  });

  it('cuts a one-line excerpt around the first term', () => {
    const text = `${'x '.repeat(200)}the connection was refused\n${'y '.repeat(200)}`;
    const s = snippet(text, queryTerms('refused'));
    expect(s).toContain('connection was refused');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).not.toContain('\n');
  });
});
