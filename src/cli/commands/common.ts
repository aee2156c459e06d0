// Small helpers every command shares.
import type { ListOptions } from '../../memory/types.js';
import type { ParsedArgs } from '../spec.js';

export const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

export function listOptions(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ListOptions {
  return { env, cwd: process.cwd(), global: Boolean(args.global) };
}

/** Colour decision of cli.md §1: TTY and no NO_COLOR, unless --color says otherwise. */
export function useColor(args: ParsedArgs, stream: NodeJS.WriteStream = process.stdout): boolean {
  const choice = str(args.color) ?? 'auto';
  if (choice === 'always') return true;
  if (choice === 'never') return false;
  return Boolean(stream.isTTY) && !process.env.NO_COLOR;
}
