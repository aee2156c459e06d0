// What `sivtr run` and `sivtr pipe` keep of an output: all of it raw when it fits, else its first and
// last whole lines rendered, with one line saying how many bytes were left out.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptOutput, KEPT_HEAD_BYTES, KEPT_TAIL_BYTES, type Kept } from '../../src/capture/kept-output.js';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';

function keep(chunks: (string | Buffer)[], headBytes: number, tailBytes: number): Kept {
  const kept = new KeptOutput({ headBytes, tailBytes });
  for (const c of chunks) kept.write(typeof c === 'string' ? Buffer.from(c) : c);
  return kept.end();
}

const lines = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `line ${String(from + i).padStart(3, '0')}\n`).join('');

describe('kept output', () => {
  it('keeps everything raw when it fits, for the store to render', () => {
    expect(keep(['a\x1b[31mb\r\n', 'c\n'], 64, 64)).toEqual({ raw: 'a\x1b[31mb\r\nc\n' });
  });

  it('keeps whole lines of the start and the end, and counts the bytes between', () => {
    const text = lines(1, 100); // 9 bytes a line
    const kept = keep([text], 40, 40);
    // head: 40 bytes hold 4 whole lines; tail: its last 40 bytes start inside a line, which goes too.
    expect(kept).toEqual({ rendered: { plain: `${lines(1, 4)}[… ${text.length - 36 - 36} bytes omitted …]\n${lines(97, 100).trimEnd()}`, ansi: `${lines(1, 4)}[… ${text.length - 72} bytes omitted …]\n${lines(97, 100).trimEnd()}` } });
  });

  it('gives the same result whatever the chunking', () => {
    const text = Buffer.from(lines(1, 60) + 'ünïcödé 日本語 🙂\n'.repeat(5) + lines(61, 120));
    const whole = keep([text], 100, 150);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...[...new Set(cuts)].sort((a, b) => a - b), text.length];
        const chunks = points.slice(1).map((p, i) => text.subarray(points[i], p));
        expect(keep(chunks, 100, 150)).toEqual(whole);
      }),
    );
  });

  it('cuts a line longer than what is kept on a character boundary, never inside one', () => {
    const text = '日本語'.repeat(100); // one line, 900 bytes, 3 bytes a character
    const kept = keep([text], 32, 32);
    expect('rendered' in kept).toBe(true);
    if (!('rendered' in kept)) return;
    expect(kept.rendered.plain).not.toContain('\ufffd');
    const [head, note, tail] = kept.rendered.plain.split('\n');
    expect(head).toBe('日本語'.repeat(3) + '日'); // 30 of 32 bytes: the next character would split
    expect(tail).toBe('語' + '日本語'.repeat(3)); // the last 32 bytes less a partial character
    expect(note).toBe(`[… ${900 - 30 - 30} bytes omitted …]`);
  });

  it('keeps colours in the coloured form of both ends', () => {
    const text = '\x1b[31mred start\x1b[0m\n' + lines(1, 50) + '\x1b[32mgreen end\x1b[0m\n';
    const kept = keep([text], 30, 30);
    if (!('rendered' in kept)) throw new Error('expected a cut');
    expect(kept.rendered.plain).toMatch(/^red start\nline 001\n\[… \d+ bytes omitted …\]\nline 050\ngreen end$/);
    expect(kept.rendered.ansi).toContain('\x1b[31mred start');
    expect(kept.rendered.ansi).toContain('\x1b[32mgreen end');
  });
});

describe('`sivtr pipe` and `sivtr run` of an output larger than what is kept', () => {
  const size = KEPT_HEAD_BYTES + KEPT_TAIL_BYTES + 2_000_000;
  const generate = `{ echo FIRST LINE; yes 'some line of output 0123456789' | head -n ${Math.ceil(size / 31)}; echo LAST LINE; }`;

  for (const how of ['pipe', 'run'] as const) {
    it(`${how}: keeps the first and last lines, says what was left out, passes everything through`, () => {
      const tmp = tempDir('sivtr-kept-');
      try {
        const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: `${tmp.path}/data` });
        const line = how === 'pipe' ? `(${generate}) | "${process.execPath}" "${BIN}" pipe | wc -c` : `"${process.execPath}" "${BIN}" run sh -c "${generate.replace(/"/g, '\\"')}" | wc -c`;
        const r = spawnSync('sh', ['-c', line], { env, cwd: tmp.path, encoding: 'utf8', timeout: 60_000 });
        expect(r.stderr).toBe('');
        expect(Number(r.stdout.trim())).toBeGreaterThan(size); // what the reader got is all of it
        const shown = spawnSync(process.execPath, [BIN, 'show', 'history/1', '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
        const entry = JSON.parse(shown.stdout) as { output: string };
        expect(entry.output.startsWith('FIRST LINE\nsome line of output 0123456789\n')).toBe(true);
        expect(entry.output.endsWith('some line of output 0123456789\nLAST LINE')).toBe(true);
        expect(entry.output).toMatch(/\n\[… \d+ bytes omitted …\]\n/);
        expect(entry.output.length).toBeLessThanOrEqual(KEPT_HEAD_BYTES + KEPT_TAIL_BYTES + 100);
      } finally {
        tmp.cleanup();
      }
    }, 60_000);
  }
});
