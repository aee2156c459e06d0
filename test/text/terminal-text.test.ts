import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTerminalText, TerminalText } from '../../src/text/terminal-text.js';

const plain = (raw: string) => renderTerminalText(raw).plain;

/** The model's snapshot after `raw` was written in pieces cut at these offsets (any order, repeats allowed). */
function writtenInPieces(raw: string, cuts: number[]): ReturnType<TerminalText['snapshot']> {
  const model = new TerminalText();
  let last = 0;
  for (const p of [...new Set(cuts)].sort((a, b) => a - b)) {
    model.write(raw.slice(last, p));
    last = p;
  }
  model.write(raw.slice(last));
  return model.snapshot();
}

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
        expect(writtenInPieces(raw, cuts)).toEqual(renderTerminalText(raw));
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

describe('colour sequences far apart in one write', () => {
  // The next ESC is found once per write and reused line by line: colour at the start and the end
  // of a long write, none between, must render as the same text written a line at a time.
  const text = `\x1b[31mred\x1b[0m\n${'plain line\n'.repeat(500)}mid \x1b[1mbold\x1b[0m tail\n${'plain again\n'.repeat(500)}\x1b[32mgreen\x1b[0m end\n`;
  for (const options of [{}, { headChars: 200, tailChars: 400 }]) {
    it(`renders as line by line ${JSON.stringify(options)}`, () => {
      const whole = new TerminalText(options);
      whole.write(text);
      const byLine = new TerminalText(options);
      for (const line of text.split(/(?<=\n)/)) byLine.write(line);
      expect(whole.snapshot()).toEqual(byLine.snapshot());
      expect(whole.snapshot().ansi).toContain('\x1b[32mgreen');
      expect(whole.snapshot().plain).toContain('green end');
    });
  }
});

describe('display width: columns, not code units', () => {
  it('a shorter line drawn over a progress line with CJK leaves what a terminal shows', () => {
    expect(plain('进度 10%\r进度 50%\r进度 完成\n')).toBe('进度 完成');
    expect(plain('abcdefghij\r中文\n')).toBe('中文efghij');
  });

  it('a narrow character over half of a wide one blanks the other half', () => {
    expect(plain('中文\rx')).toBe('x 文');
    expect(plain('中文\x1b[3Dx')).toBe(' x文');
    expect(plain('中\bx')).toBe(' x');
  });

  it('cursor moves and erases count columns', () => {
    expect(plain('中文字\x1b[3GX')).toBe('中X 字');
    expect(plain('中文\r\x1b[1X')).toBe('  文');
    expect(plain('中文字\r\x1b[1P')).toBe(' 文字');
    expect(plain('中文字\x1b[4D\x1b[K')).toBe('中');
    expect(plain('中文字\x1b[3D\x1b[1K')).toBe('    字');
    expect(plain('ab\x1b[2C中')).toBe('ab  中');
  });

  it('combining marks take no column of their own', () => {
    expect(plain('cafe\u0301!\rCAFE')).toBe('CAFE!');
    expect(plain('n\u0303o\x1b[1Dx')).toBe('n\u0303x');
  });

  it('an emoji ZWJ sequence, a flag and an emoji with VS16 are two columns each', () => {
    expect(plain('👨\u200d👩\u200d👧 ok\r\x1b[3Cnew')).toBe('👨\u200d👩\u200d👧 new');
    expect(plain('🇩🇪 de\r\x1b[3C!')).toBe('🇩🇪 !e');
    expect(plain('\u263a\ufe0fx\r12')).toBe('12x');
    expect(plain('\u263ax\r1')).toBe('1x'); // text presentation: one column
  });

  it('a zero-width joiner or space stays with the character before it', () => {
    expect(plain('a\u200bb\rX')).toBe('Xb'); // overwriting `a` overwrites what joined it
    expect(plain('ab\u200bc\r\x1b[2CZ')).toBe('ab\u200bZ');
  });

  it('keeps colours on wide characters in the ansi variant', () => {
    const r = renderTerminalText('\x1b[31m中文\x1b[0m ok\r\x1b[2C\x1b[32mX\x1b[0m');
    expect(r.plain).toBe('中X  ok');
    expect(r.ansi).toBe('\x1b[31m中\x1b[0m\x1b[32mX\x1b[0m  ok');
  });

  it('gives the same result whatever the chunking, clusters and surrogate pairs cut included', () => {
    const raw = '进度 10%\r进度 完成\n👨\u200d👩\u200d👧 cafe\u0301\r\x1b[2C\x1b[31m文\x1b[0m🇩🇪🇫\u263a\ufe0f\x1b[3D\x1b[K!\nabc\u200b\u0301d\r中\x1b[1P\n';
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: raw.length }), { maxLength: 10 }), (cuts) => {
        expect(writtenInPieces(raw, cuts)).toEqual(renderTerminalText(raw));
      }),
      { numRuns: 300 },
    );
  });

  it('an append-only line and an edited one agree on columns', () => {
    // The first is kept as runs of text, the second becomes cells when the CR overwrites it.
    expect(plain('中文\u0301👨\u200d👩 x\r\x1b[7C!')).toBe('中文\u0301👨\u200d👩 !');
    expect(plain('中文\u0301👨\u200d👩 x\ry\r\x1b[7C!')).toBe('y 文\u0301👨\u200d👩 !');
  });
});

describe('long outputs: head, omitted middle, tail', () => {
  // Past the head most lines are kept raw (never split into runs) and dropped unseen; a line split
  // between writes takes the ordinary path, so any chunking compares the two.
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    if (i % 7 === 3) lines.push(`p ${i}%\rp done ${i}\r\n`);
    else if (i % 11 === 5) lines.push(`\x1b[2A\rUP${i}\x1b[K\r\n\r\n`);
    else lines.push(`line ${i} \x1b[3${i % 8}mcol\x1b[0m${i % 5 === 0 ? ' \x1b[1mbold' : ''} end\r\n`);
  }
  const raw = lines.join('') + 'tail\x1b[0m';
  const options = { headChars: 60, tailChars: 500, eraseDisplayClears: true };

  it('keeps colours across raw lines and lets the cursor go back up into them', () => {
    const r = renderTerminalText(raw, options);
    expect(r.plain).toMatch(/^line 0 col bold end\nline 1 col end\n/);
    expect(r.ansi).toContain('\x1b[1mline 1 \x1b[0m\x1b[1m\x1b[31mcol\x1b[0m end'); // bold carried over from line 0
    expect(r.plain).toMatch(/\[… \d+ chars omitted …\]/);
    // Two lines up from line 291, past the head: `line 289` was kept raw, then written over.
    expect(r.plain).toContain('\nline 288 col end\nUP291\np done 290\n');
    expect(r.plain).not.toContain('line 289');
    expect(r.ansi.endsWith('line 299 \x1b[33mcol\x1b[0m end\ntail')).toBe(true);
  });

  it('gives the same head, omitted count and tail whatever the chunking', () => {
    const whole = renderTerminalText(raw, options);
    const perChar = new TerminalText(options);
    for (const ch of raw) perChar.write(ch);
    expect(perChar.snapshot()).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: raw.length }), { maxLength: 8 }), (cuts) => {
        const model = new TerminalText(options);
        let last = 0;
        for (const p of [...new Set(cuts)].sort((a, b) => a - b)) {
          model.write(raw.slice(last, p));
          last = p;
        }
        model.write(raw.slice(last));
        expect(model.snapshot()).toEqual(whole);
      }),
    );
  });
});
