// Gram keys: lower-casing while hashing gives exactly the keys of the lower-cased text, so a
// chunk is found by every query that `termKeys` makes of a lower-cased term.
import { describe, expect, it } from 'vitest';
import { CUT_MARK, type CutText } from '../../src/store/docs.js';
import { CUT_MARK_BYTES, CUT_MARK_OTHER, KeySet, termKeys } from '../../src/store/grams.js';

function keysOf(add: (k: KeySet) => void): number[] {
  const k = new KeySet();
  add(k);
  return [...k.keys].sort((a, b) => a - b);
}

/** A deterministic mix of the characters the rule cares about. */
function sample(seed: number, length: number, alphabet: string): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

describe('gram keys', () => {
  const ascii = 'abcXYZ_019 \n\t\0-.:/"ZzAa@[`{';
  // İ lower-cases to two code units, Σ by its neighbours, 𐐀 (a surrogate pair) as a pair, ǅ (title case) to ǆ.
  const mixed = ascii + 'İΣσςÄäÉ会话记录ǅ𐐀\uffff\ud800';

  it('are the same lower-cased on the fly as of the lower-cased text, ASCII or not', () => {
    for (let seed = 1; seed <= 200; seed++) {
      for (const alphabet of [ascii, mixed]) {
        const text = sample(seed, 1 + (seed % 97), alphabet);
        expect(keysOf((k) => k.addTextLowering(text)), text).toEqual(keysOf((k) => k.addText(text.toLowerCase())));
      }
    }
  });

  it('are the same for non-ASCII text lower-cased one code unit at a time', () => {
    const plain = 'abcXYZ 019_Ää Éé Ωω Жж 会话记录 ǅǆ ﬀ';
    for (let seed = 1; seed <= 200; seed++) {
      const text = sample(seed, 2 + (seed % 131), plain);
      expect(keysOf((k) => k.addTextLowering(text)), text).toEqual(keysOf((k) => k.addText(text.toLowerCase())));
    }
  });

  it('are the same read from ASCII bytes in place as from the text, part by part', () => {
    const printable = 'abcXYZ_019 \n\t-.:/"ZzAa@[`{~';
    for (let seed = 1; seed <= 200; seed++) {
      const parts = [sample(seed, seed % 5, printable), sample(seed + 1, 1 + (seed % 61), printable), sample(seed + 2, seed % 3, printable)];
      // A blank part (-1) has no bytes; the others are each followed by one separator.
      const lengths = Int32Array.from([...parts.map((p) => p.length), -1, 3]);
      const bytes = Buffer.from(`${parts.join('\0')}\0abc\0`, 'latin1');
      const fromBytes = keysOf((k) => k.addAsciiParts(bytes, lengths, lengths.length));
      expect(fromBytes, parts.join('|')).toEqual(keysOf((k) => [...parts, 'abc'].forEach((p) => k.addTextLowering(p))));
    }
  });

  it('start afresh after next(): a trigram met in one set is a key of the next when met there', () => {
    const k = new KeySet();
    const lengths = Int32Array.of(11);
    k.addAsciiParts(Buffer.from('npm test ok'), lengths, 1);
    const first = [...k.keys];
    k.next();
    expect(k.keys).toEqual([]);
    k.addAsciiParts(Buffer.from('npm test ok'), lengths, 1);
    expect(k.keys).toEqual(first);
    expect([...first].sort((a, b) => a - b)).toEqual(keysOf((s) => s.addTextLowering('npm test ok')));
  });

  it('are the same from the WebAssembly scanner as from the JavaScript loop, in the same order', () => {
    const printable = 'abcXYZ_019 \n\t-.:/"ZzAa@[`{~';
    // Parts of every length, blank ones (-1, no bytes) and empty ones (0, a separator) among
    // them; sets in a row on one KeySet, each of which must start empty; and a part long enough
    // (200 KB) to make the scanner grow its memory.
    const wasm = new KeySet();
    const js = new KeySet();
    for (let seed = 1; seed <= 60; seed++) {
      const parts = Array.from({ length: 1 + (seed % 40) }, (_, i) => sample(seed * 97 + i, (seed * 7 + i) % 9 === 0 ? 0 : (seed + i) % 300, printable));
      if (seed === 30) parts.push(sample(7, 200_000, printable));
      const lengths = Int32Array.from(parts.map((p, i) => (p === '' && i % 2 === 0 ? -1 : p.length)));
      const bytes = Buffer.from(parts.map((p, i) => (lengths[i] === -1 ? '' : `${p}\0`)).join(''), 'latin1');
      wasm.next();
      js.next();
      wasm.addAsciiParts(bytes, lengths, lengths.length);
      js.addAsciiPartsHere(bytes, lengths, lengths.length);
      expect(wasm.keys, `seed ${seed}`).toEqual(js.keys);
      if (parts.some((p) => p.length >= 3)) expect(wasm.keys.length).toBeGreaterThan(0);
    }
  });

  it('are the same from UTF-8 bytes, ASCII runs in place, as from the texts, whatever they hold', () => {
    // Mostly ASCII with a few others (a cut output's '…', accents, CJK), texts dense with CJK,
    // characters that lower-case only with their text (İ, Σ), surrogate pairs and lone halves
    // (which UTF-8 turns into U+FFFD), non-ASCII characters at both ends and side by side, and
    // a text of 200 K characters that makes the scanner grow its memory.
    const printable = 'abcXYZ_019 \n\t-.:/"ZzAa@[`{~';
    const rare = ['…', 'é', 'Ä', '会', '话', 'Ω', 'ǅ', '\u0800', '\u07ff', 'İ', 'Σ', '𐐀', '\ud800', '\udc00'];
    const k = new KeySet();
    for (let seed = 1; seed <= 300; seed++) {
      const texts = Array.from({ length: 1 + (seed % 23) }, (_, i) => {
        let t = sample(seed * 31 + i, (seed * 5 + i) % 7 === 0 ? seed % 3 : (seed + 3 * i) % 200, printable);
        const every = 1 + ((seed + i) % 40);
        const some = [...t].map((ch, j) => (j % every === 0 ? rare[(seed + i + j) % (seed % 5 === 0 ? rare.length : 9)]! : ch)).join('');
        if (seed % 4 === 0) t = some;
        else if (seed % 4 === 1 && i % 2 === 0) t = `${rare[seed % 4]}${t}${rare[(seed + i) % 8]}`;
        else if (seed % 4 === 2) t = sample(seed + i, (seed + i) % 50, '会话记录abc ');
        return t;
      });
      if (seed === 150) texts.push(`${sample(3, 100_000, printable)}\n…\n${sample(4, 100_000, printable)}`);
      const body = Buffer.from(texts.join('\u0000'), 'utf8');
      const lengths = texts.map((t) => Buffer.byteLength(t, 'utf8'));
      k.next();
      k.addUtf8Parts(body, texts, lengths);
      expect(new Set(k.keys).size, `seed ${seed}`).toBe(k.keys.length);
      expect([...k.keys].sort((a, b) => a - b), `seed ${seed}: ${texts.join('|').slice(0, 200)}`).toEqual(keysOf((s) => texts.forEach((t) => s.addTextLowering(t))));
    }
  });

  it('of a text the index cut are taken from its head and tail as from the text joined', () => {
    const printable = 'abcXYZ_019 \n\t-.:/"ZzAa@[`{~';
    const k = new KeySet();
    expect(CUT_MARK.length).toBe(3);
    expect(CUT_MARK.search(/[^\x00-\x7f]/)).toBe(CUT_MARK_OTHER);
    expect(Buffer.byteLength(CUT_MARK, 'utf8')).toBe(CUT_MARK_BYTES);
    for (let seed = 1; seed <= 120; seed++) {
      const cuts: (CutText | undefined)[] = [];
      const texts: string[] = [];
      for (let i = 0; i < 1 + (seed % 5); i++) {
        // ASCII pieces of 1 to 60 characters (the scanner's path), and now and then a piece
        // holding another character (the general path) or a part that is not cut.
        const head = sample(seed * 7 + i, 1 + ((seed + i) % 60), printable) + (seed % 9 === i ? 'é' : '');
        const tail = (seed % 11 === i ? '会' : '') + sample(seed * 3 + i, 1 + ((seed * 5 + i) % 60), printable);
        if ((seed + i) % 6 === 0) {
          texts.push(head + tail);
          cuts.push(undefined);
        } else {
          texts.push(head + CUT_MARK + tail);
          cuts.push({ head, tail });
        }
      }
      const body = Buffer.from(texts.join('\u0000'), 'utf8');
      const lengths = texts.map((t) => Buffer.byteLength(t, 'utf8'));
      k.next();
      k.addUtf8Parts(body, texts, lengths, cuts);
      expect(new Set(k.keys).size, `seed ${seed}`).toBe(k.keys.length);
      expect([...k.keys].sort((a, b) => a - b), `seed ${seed}: ${texts.join('|')}`).toEqual(keysOf((s) => texts.forEach((t) => s.addTextLowering(t))));
    }
  });

  it('pass by the bytes a negative length names, in the scanner as in the JavaScript loop', () => {
    const printable = 'abcXYZ_019 \n\t-.:/"ZzAa@[`{~';
    const wasm = new KeySet();
    const js = new KeySet();
    for (let seed = 1; seed <= 60; seed++) {
      // Runs of ASCII with 0 to 4 other bytes between them: a length -L - 1 passes L bytes.
      const lengths: number[] = [];
      const runs: string[] = [];
      let bytes = '';
      for (let i = 0; i < 1 + (seed % 17); i++) {
        const run = sample(seed * 13 + i, (seed + i) % 40, printable);
        const gap = (seed + i) % 5;
        lengths.push(run.length, -gap - 1);
        runs.push(run);
        bytes += `${run}\0${'\x80'.repeat(gap)}`;
      }
      const buffer = Buffer.from(bytes, 'latin1');
      wasm.next();
      js.next();
      wasm.addAsciiParts(buffer, Int32Array.from(lengths), lengths.length);
      js.addAsciiPartsHere(buffer, Int32Array.from(lengths), lengths.length);
      expect(wasm.keys, `seed ${seed}`).toEqual(js.keys);
      expect([...js.keys].sort((a, b) => a - b)).toEqual(keysOf((k) => runs.forEach((r) => k.addTextLowering(r))));
    }
  });

  it('add to the keys already in the set, each key once', () => {
    const k = new KeySet();
    k.addTextLowering('npm test');
    const before = [...k.keys];
    k.addAsciiParts(Buffer.from('npm test ok\0'), Int32Array.of(11), 1);
    expect(k.keys.slice(0, before.length)).toEqual(before);
    expect(new Set(k.keys).size).toBe(k.keys.length);
    expect([...k.keys].sort((a, b) => a - b)).toEqual(keysOf((s) => s.addTextLowering('npm test ok')));
  });

  it('hold every key a query term needs, whatever its case', () => {
    const text = 'Merge PR1137: rename to Snake_Case_Helpers; 会话记录 saved';
    const held = new Set(keysOf((k) => k.addTextLowering(text)));
    for (const term of ['pr1137', 'snake_case', 'SNAKE_CASE'.toLowerCase(), '会话', 'helpers; 会']) {
      for (const key of termKeys(term) ?? []) expect(held.has(key), term).toBe(true);
    }
    expect(termKeys('zq')).toBeUndefined();
  });
});
