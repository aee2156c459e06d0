import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

describe('sivtr demo', () => {
  it('tours copy, diff and show on a recorded session and an agent turn, leaving nothing behind', () => {
    const tmp = tempDir();
    try {
      const r = runCli(['demo'], { env: cleanEnv(tmp.path) });
      expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
      expect(r.code).toBe(0);
      for (const step of ['$ sivtr copy out 2 --print', '$ sivtr diff 1 2', '$ sivtr show terminal/current/2', '$ sivtr show claude/7f3e0c2a/1']) {
        expect(r.stdout).toContain(step);
      }
      expect(r.stdout).toMatch(/^@@ /m); // the diff really found differences
      expect(r.stdout).toContain('── p5 assistant ──');
      const dir = /in (\/\S+)/.exec(r.stdout)?.[1];
      expect(dir).toBeDefined();
    } finally {
      tmp.cleanup();
    }
  });
});
