// doctor judges only the shells a user has, and counted nouns read as English.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, plural } from '../../src/plural.js';
import { ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('sivtr-doctor-');
});
afterAll(() => tmp.cleanup());

/** A fresh home directory for one user. */
function home(name: string): string {
  const path = join(tmp.path, name);
  mkdirSync(path, { recursive: true });
  return path;
}

const shellLines = (stdout: string) => stdout.split('\n').filter((l) => /^(ok|!!) {2}(bash|zsh|pwsh|shells):/.test(l));

describe('doctor and shells', () => {
  it('a bash user with the hooks set up is not told about zsh or pwsh, even with both on PATH', () => {
    const env = cleanEnv(home('bash-user'), { SHELL: '/bin/bash' });
    expect(runCli(['init', 'bash'], { env }).code).toBe(0);
    const lines = shellLines(runCli(['doctor'], { env }).stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ok {2}bash: hooks installed in /);
  });

  it('the login shell is judged even before init', () => {
    const env = cleanEnv(home('zsh-user'), { SHELL: '/usr/bin/zsh' });
    expect(shellLines(runCli(['doctor'], { env }).stdout)).toEqual(['!!  zsh: hooks not installed — run `sivtr init zsh`']);
  });

  it('with no shell set up and no $SHELL, says so once', () => {
    const env = cleanEnv(home('nobody'), { SHELL: undefined });
    expect(shellLines(runCli(['doctor'], { env }).stdout)).toEqual(['!!  shells: no sivtr hooks installed — run `sivtr init bash` (or zsh, pwsh)']);
  });
});

describe('plurals', () => {
  it('counts nouns in English', () => {
    expect([count(1, 'reply'), count(3, 'reply'), count(2, 'line'), count(0, 'hit'), count(2, 'claude session'), plural('entry'), plural('match')]).toEqual([
      '1 reply',
      '3 replies',
      '2 lines',
      '0 hits',
      '2 claude sessions',
      'entries',
      'matches',
    ]);
  });

  it('`copy claude out 9` says "only 2 replies"', () => {
    const env = cleanEnv(home('agent-user'), { CLAUDE_CONFIG_DIR: join(ROOT, 'fixtures', 'agents', 'claude') });
    const r = runCli(['copy', 'claude', 'out', '9', '--print'], { env, cwd: tmp.path });
    expect(r.stderr).toBe('sivtr: only 2 replies recorded — try a smaller selector\n');
    expect(r.code).toBe(1);
  });
});
