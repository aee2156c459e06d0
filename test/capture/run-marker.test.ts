// The end-marker scanner of `sivtr run`: this run's markers are found wherever the PTY's reads
// split them; everything else, marker look-alikes included, comes out byte for byte.
import { describe, expect, it } from 'vitest';
import { newRunNonce, RunMarkerScanner, type MarkerPiece } from '../../src/capture/run-marker.js';

const NONCE = '01234567890123456789';
const mark = (field: string, nonce = NONCE): string => `\x1b]6973;${nonce};${field}\x07`;

type Flat = { bytes: string; marks: string[] };

/** Pieces as what was output and which markers were seen, independent of how bytes were split. */
function run(chunks: Buffer[]): Flat {
  const scanner = new RunMarkerScanner(NONCE);
  let bytes = '';
  const marks: string[] = [];
  const take = (pieces: MarkerPiece[]): void => {
    for (const p of pieces) {
      if (p.type === 'bytes') bytes += p.bytes.toString('latin1');
      else marks.push(p.type === 'start' ? `start=${p.pid}@${bytes.length}` : `end=${p.exitCode}@${bytes.length}`);
    }
  };
  for (const chunk of chunks) take(scanner.feed(chunk));
  bytes += scanner.flush().toString('latin1');
  return { bytes, marks };
}

const STREAM =
  'echoed\r\n' +
  mark('start') + // no pid: not a marker
  mark('start=4242') +
  'out \x1b[31mred\x1b[0m \x80\xff ' +
  mark('end=0', '99999999999999999999') + // another run's marker
  '\x1b]6973;' + NONCE + ';bogus\x07' + // our nonce, not a marker
  '\x1b]6973;' + NONCE + ';end=12345\x07' + // a status no shell reports
  '\x1b]6973;\x1b\x1b]0;title\x07 last' +
  mark('end=130') +
  'after';

describe('RunMarkerScanner', () => {
  const whole = run([Buffer.from(STREAM, 'latin1')]);

  it('finds the start and end markers and hands everything else on unchanged', () => {
    const before = STREAM.slice(0, STREAM.indexOf(mark('end=130'))).replace(mark('start=4242'), '');
    expect(whole.bytes).toBe(before + 'after');
    expect(whole.marks).toEqual([`start=4242@${'echoed\r\n'.length + mark('start').length}`, `end=130@${before.length}`]);
  });

  it('gives the same at every split into two reads, and byte by byte', () => {
    const buf = Buffer.from(STREAM, 'latin1');
    for (let at = 0; at <= buf.length; at++) expect(run([buf.subarray(0, at), buf.subarray(at)])).toEqual(whole);
    expect(run([...buf].map((b) => Buffer.from([b])))).toEqual(whole);
  });

  it('hands a marker cut off by the end of the stream on as output', () => {
    const cut = 'x' + mark('end=1').slice(0, -1);
    expect(run([Buffer.from(cut, 'latin1')])).toEqual({ bytes: cut, marks: [] });
  });

  it('makes nonces of digits only, different each time', () => {
    const a = newRunNonce();
    expect(a).toMatch(/^\d{20}$/);
    expect(newRunNonce()).not.toBe(a);
  });
});
