// Small helpers every command shares.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SivtrError } from '../../errors.js';
import type { ListOptions } from '../../memory/types.js';
import type { FlagSpec, ParsedArgs } from '../spec.js';

export const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** The flags that choose which sessions a command sees; `listOptions` reads them. */
export const SCOPE_FLAGS: Record<string, FlagSpec> = {
  cwd: { type: 'string', describe: 'the workspace of DIR (its directory or git repository) instead of this one' },
  scope: { type: 'string', describe: 'only sessions that ran in PATH or below it' },
  global: { type: 'boolean', alias: 'g', describe: 'every workspace, not just this directory or repository' },
};

/** A directory given on the command line: it must exist, or the answer would be silently empty. */
function requireDirectory(flag: string, value: unknown): string {
  const dir = resolve(String(value));
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing: said below
  }
  if (!isDir) throw new SivtrError(`--${flag} ${String(value)}: no such directory`, `give an existing directory, or --global for every workspace`, 2);
  return dir;
}

export function listOptions(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ListOptions {
  const opts: ListOptions = { env, cwd: args.cwd !== undefined ? requireDirectory('cwd', args.cwd) : process.cwd(), global: Boolean(args.global) };
  if (args.scope !== undefined) {
    if (opts.global) throw new SivtrError('--scope and --global contradict each other', 'give one of them', 2);
    opts.scope = requireDirectory('scope', args.scope);
  }
  return opts;
}
