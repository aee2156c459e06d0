import { describe, expect, it } from 'vitest';
import { replyParts, unitText } from '../../src/memory/render.js';
import type { Unit } from '../../src/memory/types.js';

const turn = (parts: Unit['parts']): Unit => ({ ref: 'codex/abc/1', source: 'codex', session: 'abc', index: 1, parts, title: '' });

describe('reply of an agent turn', () => {
  it('is every assistant text after the last tool activity, in order', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'fix the rounding' },
      { n: 2, kind: 'assistant', text: 'Looking at tax.ts.' },
      { n: 3, kind: 'tool_call', text: 'edit tax.ts', label: 'Edit' },
      { n: 4, kind: 'tool_output', text: 'ok', label: 'Edit' },
      { n: 5, kind: 'assistant', text: 'Fixed rounding in tax.ts.' },
      { n: 6, kind: 'assistant', text: 'Run the suite again to confirm.' },
    ]);
    expect(replyParts(u).map((p) => p.text)).toEqual(['Fixed rounding in tax.ts.', 'Run the suite again to confirm.']);
    expect(unitText(u, 'output')).toBe('Fixed rounding in tax.ts.\n\nRun the suite again to confirm.');
  });

  it('falls back to the last text when the turn ended on a tool call', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'run it' },
      { n: 2, kind: 'assistant', text: 'Running.' },
      { n: 3, kind: 'tool_call', text: 'make', label: 'Bash' },
    ]);
    expect(replyParts(u).map((p) => p.text)).toEqual(['Running.']);
  });

  it('skips progress notes (Codex commentary) that come after the reply', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'fix it' },
      { n: 2, kind: 'assistant', text: 'Fixed.' },
      { n: 3, kind: 'assistant', text: 'Checking one more thing…', commentary: true },
    ]);
    expect(replyParts(u).map((p) => p.text)).toEqual(['Fixed.']);
    expect(unitText(u, 'output')).toBe('Fixed.');
  });

  it('falls back to a progress note when the turn has nothing else', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'fix it' },
      { n: 2, kind: 'assistant', text: 'Looking…', commentary: true },
    ]);
    expect(replyParts(u).map((p) => p.text)).toEqual(['Looking…']);
  });
});
