// Runs the built CLI as a user would: a real process, real files, controlled environment.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'sivtr.js');

export type CliResult = { code: number; stdout: string; stderr: string };

/** A clean environment: nothing from the developer's machine leaks into a test. */
export function cleanEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    SIVTR_CLIPBOARD: 'none',
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string }): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: opts.env,
    cwd: opts.cwd ?? opts.env.HOME,
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function tempDir(prefix = 'sivtr-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
