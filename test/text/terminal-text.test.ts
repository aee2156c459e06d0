import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTerminalText, TerminalText } from '../../src/text/terminal-text.js';

const plain = (raw: string) => renderTerminalText(raw).plain;

describe('terminal text model', () => {
  it('turns CRLF into LF', () => {
    expect(plain('a\r\nb\r\n')).toBe('a\nb');
  });

  it('trims trailing newlines only', () => {
    expect(plain('\n\nx\n\n\n')).toBe('\n\nx');
  });

  it('leaves the final frame of a progress bar', () => {
    expect(plain('10%\r50%\r100%')).toBe('100%');
    expect(plain('downloading 10%\rdownloading 100%\ndone')).toBe('downloading 100%\ndone');
  });

  it('applies backspaces', () => {
    expect(plain('ab\bc')).toBe('ac');
    expect(plain('\b\bx')).toBe('x');
  });

  it('keeps tabs', () => {
    expect(plain('a\tb\n\tc')).toBe('a\tb\n\tc');
  });

  it('removes every escape sequence from plain text', () => {
    expect(plain('\x1b[31mred\x1b[0m \x1b]0;title\x07ok \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b[?25l\x1b(Bend')).toBe('red ok link end');
  });

  it('gives empty text for ANSI-only input', () => {
    expect(renderTerminalText('\x1b[0m\x1b[?2004h\x1b[K')).toEqual({ plain: '', ansi: '' });
  });

  it('keeps SGR colours in the ansi variant with the same text', () => {
    const r = renderTerminalText('\x1b[1;31merror\x1b[0m: bad\n');
    expect(r.plain).toBe('error: bad');
    expect(r.ansi).toBe('\x1b[1;31merror\x1b[0m: bad');
  });

  it('colour state is not confused by 256-colour zeros', () => {
    const r = renderTerminalText('\x1b[38;5;0mX\x1b[0mY');
    expect(r.ansi).toBe('\x1b[38;5;0mX\x1b[0mY');
  });

  it('erase-in-line and cursor moves rewrite the line', () => {
    expect(plain('hello world\r\x1b[Kbye')).toBe('bye');
    expect(plain('abcdef\x1b[3Dxy')).toBe('abcxyf');
    expect(plain('abc\x1b[1GZ')).toBe('Zbc');
    expect(plain('a\x1b[3Cb')).toBe('a   b');
  });

  it('cursor-up redraws multi-line progress in place', () => {
    expect(plain('line1 0%\nline2 0%\n\x1b[2A\rline1 100%\nline2 100%\n')).toBe('line1 100%\nline2 100%');
  });

  it('gives the same result whatever the chunking', () => {
    const raw = 'a\x1b[31mred\x1b[0m\r\nprog 1%\rprog 99%\x1b]0;t\x07\tx\bY\x1b[2K\rdone\n';
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: raw.length }), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const model = new TerminalText();
        let last = 0;
        for (const p of points) {
          model.write(raw.slice(last, p));
          last = p;
        }
        model.write(raw.slice(last));
        expect(model.snapshot()).toEqual(renderTerminalText(raw));
      }),
    );
  });

  it('is idempotent on its own output', () => {
    const first = renderTerminalText('x\x1b[32mgreen\x1b[0m\r\nz 10%\rz 20%');
    expect(renderTerminalText(first.ansi)).toEqual(first);
    expect(renderTerminalText(first.plain).plain).toBe(first.plain);
  });

  it('plain output never holds an escape', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\x1b', '[', '3', '1', 'm', ']', '\x07', '\r', '\n', '\b', '\t', ';', 'K') }), (raw) => {
        expect(plain(raw)).not.toMatch(/[\x1b\r\b]/);
      }),
    );
  });
});
