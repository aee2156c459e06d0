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

/** Root ignores file permissions; without these capabilities it meets them as any user does. */
const DAC_CAPS = '-dac_override,-dac_read_search';

/**
 * Runs the CLI where file permissions apply, as root too: root keeps its uid (so it still reads the
 * checkout, wherever that is) but loses the capabilities that bypass permission checks. Without
 * setpriv, root falls back to `nobody`, which needs a checkout others may enter. `bin`: another copy
 * of the launcher than this checkout's.
 */
export function runCliUnprivileged(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; bin?: string }): CliResult {
  const asRoot = process.getuid?.() === 0;
  const setpriv = asRoot && spawnSync('setpriv', ['--bounding-set', DAC_CAPS, 'true']).status === 0;
  const bin = opts.bin ?? BIN;
  const [file, argv] = setpriv ? ['setpriv', ['--bounding-set', DAC_CAPS, process.execPath, bin, ...args]] : [process.execPath, [bin, ...args]];
  const result = spawnSync(file, argv, {
    env: opts.env,
    cwd: opts.cwd ?? opts.env.HOME,
    encoding: 'utf8',
    timeout: 60_000,
    ...(asRoot && !setpriv ? { uid: 65534, gid: 65534 } : {}),
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Whether `runCliUnprivileged` drops to `nobody` (then the files it uses must be world-readable). */
export function unprivilegedIsNobody(): boolean {
  return process.getuid?.() === 0 && spawnSync('setpriv', ['--bounding-set', DAC_CAPS, 'true']).status !== 0;
}
