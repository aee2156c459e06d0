// What the painter writes for a frame: the whole screen the first time and after a resize, then
// only the rows that changed (the PTY tests in picker.test.ts show it on a real terminal).
import { describe, expect, it } from 'vitest';
import { Painter, SYNC_END, SYNC_START } from '../../src/cli/picker/painter.js';

const frame = (lines: string[], cols = 10, rows = 4) => ({ lines, cols, rows });

describe('Painter', () => {
  it('draws every line at its row, after clearing, the first time', () => {
    const out = new Painter().update(frame(['> q', 'one', 'two']));
    expect(out).toBe(`${SYNC_START}\x1b[H\x1b[2J\x1b[1;1H> q\x1b[2;1Hone\x1b[3;1Htwo${SYNC_END}`);
  });

  it('writes nothing for the frame the screen shows, and only the changed rows otherwise', () => {
    const p = new Painter(frame(['> q', 'one', 'two']));
    expect(p.update(frame(['> q', 'one', 'two']))).toBe('');
    expect(p.update(frame(['> q', 'ONE', 'two']))).toBe(`${SYNC_START}\x1b[2;1HONE${SYNC_END}`);
    expect(p.update(frame(['> q', 'ONE', 'two']))).toBe('');
  });

  it('draws the whole screen again when the terminal changed size', () => {
    const p = new Painter(frame(['> q', 'one']));
    expect(p.update(frame(['> q', 'one'], 12, 4))).toBe(`${SYNC_START}\x1b[H\x1b[2J\x1b[1;1H> q\x1b[2;1Hone${SYNC_END}`);
  });

  it('erases rows a shorter frame no longer covers', () => {
    const p = new Painter(frame(['> q', 'one', 'two']));
    expect(p.update(frame(['> q', 'one']))).toBe(`${SYNC_START}\x1b[3;1H\x1b[2K${SYNC_END}`);
  });
});
