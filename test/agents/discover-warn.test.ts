// Discovery reports what it cannot read through the caller's `warn` (listing passes its own),
// never straight to stderr.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claude } from '../../src/agents/claude.js';
import { codex } from '../../src/agents/codex.js';
import { gemini } from '../../src/agents/gemini.js';
import { pi } from '../../src/agents/pi.js';
import type { Provider } from '../../src/agents/types.js';
import { tempDir } from '../helpers/cli.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  vi.restoreAllMocks();
});

/** A home whose `dir` is a symlink to itself: reading it fails (ELOOP), as an unreadable directory would. */
function homeWithLoop(dir: string): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const path = join(t.path, dir);
  mkdirSync(join(path, '..'), { recursive: true });
  symlinkSync(path, path);
  return t.path;
}

const cases: [string, Provider, string][] = [
  ['claude', claude, '.claude/projects'],
  ['codex', codex, '.codex/sessions'],
  ['gemini', gemini, '.gemini/tmp'],
  ['pi', pi, '.pi/agent/sessions'],
];

describe('provider discovery', () => {
  it.each(cases)('%s warns through opts.warn', async (_name, provider, dir) => {
    const home = homeWithLoop(dir);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const said: string[] = [];
    for await (const _ of provider.discover({ env: { HOME: home }, warn: (m) => said.push(m) })) void _;
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/\(ELOOP\) — check its permissions$/);
    expect(stderr).not.toHaveBeenCalled();
  });
});
