// docs/capture.md, edge cases: the same byte stream in any chunking gives identical tokens and entries.
// The streams are real: recorded from bash and zsh sessions through node-pty, then re-split.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordText } from '../../src/capture/recorder.js';
import { MarkerTokenizer, normaliseTokens, escape633, unescape633, parseMarker } from '../../src/capture/tokenizer.js';
import { tempDir } from '../helpers/cli.js';
import { have, NONCE, ShellSession, type Kind } from './harness.js';

const fixedClock = (): Date => new Date('2026-01-02T03:04:05.000Z');

function splitAt(text: string, cuts: number[]): string[] {
  const points = Array.from(text); // code points: a decoder never splits one
  const sorted = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const cut of sorted) {
    chunks.push(points.slice(last, cut).join(''));
    last = cut;
  }
  chunks.push(points.slice(last).join(''));
  return chunks;
}

function tokensOf(chunks: string[]) {
  const t = new MarkerTokenizer(NONCE);
  return normaliseTokens(chunks.flatMap((c) => t.feed(c)));
}

describe('tokenizer', () => {
  const mark = (body: string, st = '\x07') => `\x1b]${body}${st}`;
  const pieces = [
    'hello ',
    '\r\n',
    '日本🙂',
    mark(`133;A;sivtr=${NONCE}`),
    mark(`133;B;sivtr=${NONCE}`, '\x1b\\'),
    mark(`133;C;sivtr=${NONCE}`, '\x9c'),
    mark(`133;D;7;sivtr=${NONCE}`),
    mark(`633;E;${escape633('echo a;b\\c\n')};${NONCE}`),
    mark(`633;P;Cwd=${escape633('/tmp/a b')};${NONCE}`),
    mark('133;A'),
    mark('133;D;0;sivtr=deadbeef'),
    mark('0;title'),
    '\x1b[31m',
    '\x1b[?1049h',
    '\x1b[?1049l',
    '\x1b]133;C', // an OSC aborted by the next ESC
    '\x1b',
    '\x1b(B',
  ];

  it('gives the same tokens for any chunking of any mix of markers, escapes and text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (parts, cuts) => {
          const text = parts.join('');
          expect(tokensOf(splitAt(text, cuts))).toEqual(tokensOf([text]));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('recognises only markers with our nonce, and decodes 633 escaping', () => {
    expect(parseMarker(`133;D;130;sivtr=${NONCE}`, NONCE)).toEqual({ kind: 'D', exitCode: 130 });
    expect(parseMarker(`133;D;0;sivtr=deadbeef`, NONCE)).toBeUndefined();
    expect(parseMarker('133;A', NONCE)).toBeUndefined();
    expect(parseMarker(`633;E;a\\x3bb\\x20\\\\;${NONCE}`, NONCE)).toEqual({ kind: 'E', command: 'a;b \\' });
    for (let code = 1; code < 128; code++) {
      const s = `a${String.fromCharCode(code)}b`;
      expect(unescape633(escape633(s))).toBe(s);
    }
  });

  it('passes foreign sequences through as text, byte for byte', () => {
    const text = `a${mark('133;A')}b\x1b[31mc${mark('133;D;0;sivtr=x')}\x1b]133;C\x1bXd`;
    const joined = tokensOf([text]).map((t) => (t.type === 'text' ? t.text : '')).join('');
    expect(joined).toBe(text);
  });
});

const kinds: Kind[] = ['bash', 'zsh'];
for (const kind of kinds) {
  describe.skipIf(!have(kind))(`${kind} recording`, () => {
    const tmp = tempDir(`sivtr-chunk-${kind}-`);
    let stream = '';
    beforeAll(async () => {
      const s = new ShellSession({ kind, home: tmp.path, mode: 'proxy' });
      await s.ready();
      for (const line of [
        'echo hi',
        `printf 'progress 1%%\\rprogress 99%%\\n\\033[32mgreen\\033[0m\\n'`,
        'false',
        'cd /tmp',
        `printf 'x\\033[?1049hALT\\033[?1049ly\\n'`,
        'cat <<EOF\rbody\rEOF',
        `printf '\\033]133;D;0;sivtr=deadbeef\\007spoof\\n'`,
        `echo '日本語 🙂'`,
        'printf nonl',
      ])
        await s.run(line);
      await s.exit();
      stream = s.chunks.join('');
    }, 60_000);
    afterAll(() => tmp.cleanup());

    it('#16 any chunking of the real stream gives identical entries', () => {
      const whole = recordText(stream, NONCE, fixedClock);
      expect(whole.map((e) => e.command)).toContain('echo hi');
      expect(whole.length).toBeGreaterThanOrEqual(9);
      for (const size of [1, 2, 3, 7]) {
        const chunks = splitAt(stream, Array.from({ length: Math.ceil(stream.length / size) }, (_, i) => (i + 1) * size));
        expect(recordText(chunks, NONCE, fixedClock)).toEqual(whole);
      }
      fc.assert(
        fc.property(fc.array(fc.nat({ max: stream.length }), { maxLength: 200 }), (cuts) => {
          expect(recordText(splitAt(stream, cuts), NONCE, fixedClock)).toEqual(whole);
        }),
        { numRuns: 200 },
      );
    });
  });
}
