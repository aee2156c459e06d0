// Gram keys: lower-casing while hashing gives exactly the keys of the lower-cased text, so a
// chunk is found by every query that `termKeys` makes of a lower-cased term.
import { describe, expect, it } from 'vitest';
import { KeySet, termKeys } from '../../src/store/grams.js';

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
