// The session a drill-down command reads (`overview claude/3f2a9c1d`): a ref, maybe down to
// turns (`claude/3f2a9c1d/2-4`); a part is not a session.
import { SivtrError } from '../errors.js';
import { resolveRef, type Resolved } from '../memory/resolve.js';
import type { ListOptions } from '../memory/types.js';
import type { ParsedArgs } from './spec.js';
import { listOptions } from './commands/common.js';
import { requireRefSource } from './source-name.js';

export async function resolveSessionArg(command: string, args: ParsedArgs): Promise<Resolved> {
  return resolveSessionRef(command, args._[0], listOptions(args));
}

/** The same for a caller with its own list options (the MCP server). */
export async function resolveSessionRef(command: string, ref: string | undefined, opts: ListOptions): Promise<Resolved> {
  if (ref === undefined) throw new SivtrError(`${command} needs a session`, `e.g. \`sivtr ${command} claude/current\` (list them with \`sivtr sessions\`)`, 2);
  if (!ref.includes('/')) throw new SivtrError(`"${ref}" is not a session ref`, `name one as source/session, e.g. \`sivtr ${command} ${ref}/current\``, 2);
  requireRefSource(ref);
  const resolved = await resolveRef(ref, opts);
  if (resolved.parts) throw new SivtrError(`${command} reads whole turns, not parts`, `drop the /p… part: \`sivtr ${command} ${ref.split('/').slice(0, 3).join('/')}\``, 2);
  return resolved;
}
