// `sivtr demo` records a live bash under the recorder, then runs copy/diff/show on that recording.
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have } from './harness.js';

describe.skipIf(!have('bash'))('sivtr demo on a live recording', () => {
  it('records real output (final progress frame, colours stripped) and tours it', () => {
    const tmp = tempDir('sivtr-demo-live-');
    try {
      const r = runCli(['demo'], { env: cleanEnv(tmp.path) });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('recording a live bash session');
      expect(r.stdout).not.toContain('bundled recording');
      const copied = r.stdout.split('$ sivtr copy out 2 --print')[1]!.split('$ sivtr diff')[0]!;
      expect(copied).toContain('running 3/3\n✔ parses config\n✖ greets the user');
      expect(copied).not.toContain('running 1/3');
      expect(r.stdout).toMatch(/^-✖ greets the user$/m); // the older run failed
      expect(r.stdout).toMatch(/^\+✔ greets the user$/m); // NAME=Ada fixed it
      expect(r.stdout).toMatch(/^demo:app\$ \.\/check\.sh\nrunning 3\/3$/m);
    } finally {
      tmp.cleanup();
    }
  });

  it('with SIVTR_DISABLE=1 says recording is disabled instead of waiting for prompts, and tours the bundled recording', () => {
    const tmp = tempDir('sivtr-demo-disabled-');
    try {
      const r = runCli(['demo'], { env: cleanEnv(tmp.path, { SIVTR_DISABLE: '1' }) });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^sivtr demo — recording is disabled \(SIVTR_DISABLE is set; unset it for a live session\): touring a bundled recording instead$/m);
      expect(r.stdout).not.toContain('node-pty');
      expect(r.stdout).not.toContain('recording a live bash session');
      expect(r.stdout).toContain('$ sivtr copy out 2 --print');
    } finally {
      tmp.cleanup();
    }
  });
});
