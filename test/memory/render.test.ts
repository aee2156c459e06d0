import { describe, expect, it } from 'vitest';
import { finalReply, unitText } from '../../src/memory/render.js';
import type { Unit } from '../../src/memory/types.js';

const turn = (parts: Unit['parts']): Unit => ({ ref: 'codex/abc/1', source: 'codex', session: 'abc', index: 1, parts, title: '' });

describe('final reply of an agent turn', () => {
  it('skips progress notes (Codex commentary) that come after the reply', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'fix it' },
      { n: 2, kind: 'assistant', text: 'Fixed.' },
      { n: 3, kind: 'assistant', text: 'Checking one more thing…', commentary: true },
    ]);
    expect(finalReply(u)?.text).toBe('Fixed.');
    expect(unitText(u, 'output')).toBe('Fixed.');
  });

  it('falls back to a progress note when the turn has nothing else', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'fix it' },
      { n: 2, kind: 'assistant', text: 'Looking…', commentary: true },
    ]);
    expect(finalReply(u)?.text).toBe('Looking…');
  });
});
