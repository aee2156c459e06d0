// Units as the index stores them: the time of a unit is read as Date.parse reads it, whatever
// path reads it (the common UTC form is parsed without Date.parse).
import { describe, expect, it } from 'vitest';
import { unitDoc } from '../../src/store/docs.js';
import type { Unit } from '../../src/memory/types.js';

const atOf = (at: string): number | null => unitDoc({ ref: 'terminal/t/1', source: 'terminal', session: 't', index: 1, parts: [], title: '', at } as Unit).at;
const parsed = (s: string): number | null => (Number.isNaN(Date.parse(s)) ? null : Date.parse(s));

describe('unit times', () => {
  it('are what Date.parse makes of them, for every day, time and millisecond form', () => {
    const cases: string[] = [];
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    for (let y = 1968; y <= 2032; y += 4) for (let m = 1; m <= 12; m++) for (let d = 1; d <= 31; d++) {
      const t = `${pad((d * 7) % 24)}:${pad((d * 13) % 60)}:${pad((m * 11) % 60)}`;
      cases.push(`${y}-${pad(m)}-${pad(d)}T${t}Z`, `${y}-${pad(m)}-${pad(d)}T${t}.${pad((d * 37) % 1000, 3)}Z`);
    }
    const odd = [
      '2026-02-29T00:00:00Z', '2024-02-29T12:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z', '2026-10-01T24:00:00Z',
      '2026-10-01T23:60:00Z', '2026-10-01T23:59:60Z', '0099-01-01T00:00:00Z', '2026-1a-01T00:00:00Z', '2026-10-01T00:00:00.5Z',
      '2026-10-01 00:00:00Z', '2026-10-01T00:00:00+02:00', '2026-10-01T00:00:00.000+05:30', '2026-10-01', 'yesterday',
    ];
    for (const s of [...cases, ...odd]) expect(atOf(s), s).toBe(parsed(s));
    expect(atOf('2026-10-01T09:00:00Z')).toBe(Date.UTC(2026, 9, 1, 9));
  });
});

describe('unit digests and texts', () => {
  const unit = (texts: string[]): Unit =>
    ({ ref: 'claude/s/1', source: 'claude', session: 's', index: 1, title: 't', parts: texts.map((text, i) => ({ n: i + 1, kind: 'assistant', text })) }) as Unit;

  it('give the chunk the parts joined by NUL in UTF-8, encoded once with the digest', () => {
    const doc = unitDoc(unit(['héllo 会话', 'x\ud800y', '😀 done']));
    expect(doc.text?.toString('utf8')).toBe(Buffer.from('héllo 会话\u0000x\ud800y\u0000😀 done', 'utf8').toString('utf8'));
    expect(unitDoc(unit([' \n'])).text?.length).toBe(0); // a blank part is no part
  });

  it('encode a part the index cut as its head, the mark and its tail joined', () => {
    const long = (c: string, n: number): string => Array.from({ length: n }, (_, i) => (i % 97 === 0 ? c : String.fromCharCode(97 + (i % 26)))).join('');
    // An ASCII output, one with a two-byte head, and one of every kind the limits differ for.
    for (const [kind, text] of [['tool_output', long('x', 40_000)], ['tool_output', long('é', 30_000)], ['assistant', long('会', 90_000)], ['output', `${long('\n', 20_000)}😀`]] as const) {
      const doc = unitDoc({ ref: 'claude/s/1', source: 'claude', session: 's', index: 1, title: 't', parts: [{ n: 1, kind, text }, { n: 2, kind: 'user', text: 'short' }] } as Unit);
      const part = doc.parts[0]!;
      expect(part.cut, kind).toBeDefined();
      expect(part.text).toBe(`${part.cut!.head}\n…\n${part.cut!.tail}`);
      expect(part.text.length).toBeLessThan(text.length);
      expect(doc.text!.equals(Buffer.from(`${part.text}\u0000short`, 'utf8')), kind).toBe(true);
      expect(doc.textBytes).toEqual([Buffer.byteLength(part.text, 'utf8'), 5]);
    }
  });

  it('tell units apart by where their parts begin, and not by chance', () => {
    const a = unitDoc(unit(['ab', 'c'])).hash;
    expect(unitDoc(unit(['a', 'bc'])).hash).not.toBe(a);
    expect(unitDoc(unit(['ab', 'c'])).hash).toBe(a);
    expect(unitDoc(unit(['ab', 'd'])).hash).not.toBe(a);
  });
});
