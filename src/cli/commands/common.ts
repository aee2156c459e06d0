// Small helpers every command shares.
import type { ListOptions } from '../../memory/types.js';
import type { ParsedArgs } from '../spec.js';

export const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

export function listOptions(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ListOptions {
  return { env, cwd: process.cwd(), global: Boolean(args.global) };
}
