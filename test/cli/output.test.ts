// The output kernel every command prints through.
import { describe, expect, it } from 'vitest';
import { duration, heading, localTime, oneLine, shortPath, styles, table, useColor } from '../../src/cli/output.js';

describe('output kernel', () => {
  it('formats local times, or says there is none', () => {
    const at = new Date(2026, 4, 2, 9, 4, 30).toISOString();
    expect(localTime(at)).toBe('2026-05-02 09:04');
    expect(localTime(undefined)).toBe('-');
    expect(localTime(null, '????-??-?? ??:??')).toBe('????-??-?? ??:??');
    expect(localTime('yesterday-ish')).toBe('yesterday-ish');
  });

  it('decides on colour from --color, the stream and NO_COLOR', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    const saved = process.env.NO_COLOR;
    delete process.env.NO_COLOR;
    try {
      expect([useColor({ color: 'auto' }, tty), useColor({ color: 'auto' }, pipe), useColor({ color: 'always' }, pipe), useColor({ color: 'never' }, tty), useColor(undefined, tty)]).toEqual([true, false, true, false, true]);
      process.env.NO_COLOR = '1';
      expect(useColor({ color: 'auto' }, tty)).toBe(false);
      expect(useColor({ color: 'always' }, tty)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
    expect(styles(true).red('x')).toBe('\x1b[31mx\x1b[0m');
    expect(styles(false).red('x')).toBe('x');
  });

  it('aligns tables, cuts titles, shortens paths and durations', () => {
    expect(table([['ID', 'SOURCE', 'TITLE'], ['7f3e0c2a', 'claude', 'npm test'], ['a', 'terminal', '']])).toBe('ID        SOURCE    TITLE\n7f3e0c2a  claude    npm test\na         terminal\n');
    expect(oneLine('a\n  b\tc', 100)).toBe('a b c');
    expect(oneLine('x'.repeat(10), 5)).toBe('xxxx…');
    expect(shortPath(`${process.env.HOME}/src/app`)).toBe('~/src/app');
    expect([duration(850), duration(2400), duration(192_000), duration(undefined)]).toEqual(['850ms', '2.4s', '3m12s', '']);
    expect(heading('claude/3f2a9c1d/2')).toBe('══ claude/3f2a9c1d/2 ══');
    expect(heading('codex/1/3', false)).toBe('══ codex/1/3 (unfinished) ══');
  });
});
