// The hot path's argv parser: handles well-formed invocations of one command's spec, answers
// --help and --version itself, and gives up (returns undefined) on anything else it is unsure
// of, so yargs can name the problem.
import { UsageError } from '../errors.js';
import { GLOBAL_FLAGS, type CommandSpec, type FlagSpec, type ParsedArgs } from './spec.js';

export type FastParse = ParsedArgs | 'help' | 'version' | undefined;

const isHelp = (token: string): boolean => token === '--help' || token === '-h';

/**
 * A pass-through command (`sivtr run CMD…`) takes sivtr's own options only before the command;
 * `--` ends them, so `sivtr run -- sh -c '…'` runs `sh`.
 */
function parsePassThrough(spec: CommandSpec, argv: string[], args: ParsedArgs): FastParse {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') return { ...args, _: argv.slice(i + 1) };
    if (!token.startsWith('-') || token === '-') return { ...args, _: argv.slice(i) };
    if (isHelp(token)) return 'help';
    if (token === '--version') return 'version';
    const [name, inline] = token.startsWith('--') ? token.slice(2).split(/=(.*)/s, 2) : [token, undefined];
    const flag = GLOBAL_FLAGS[name!];
    if (!flag) throw new UsageError(`unknown option ${token} for \`sivtr ${spec.name}\``, `to run a command that starts with "-", put \`--\` before it: \`sivtr ${spec.name} -- ${token}\``);
    const value = inline ?? argv[++i];
    if (value === undefined || (flag.choices && !flag.choices.includes(value))) return undefined;
    args[name!] = value;
  }
  return { ...args, _: [] };
}

export function parseFast(spec: CommandSpec, argv: string[]): FastParse {
  const flags: Record<string, FlagSpec> = { ...GLOBAL_FLAGS, ...spec.flags };
  const byAlias = new Map<string, string>();
  for (const [name, f] of Object.entries(flags)) if (f.alias) byAlias.set(f.alias, name);
  const args: ParsedArgs = { _: [] };
  for (const [name, f] of Object.entries(flags)) if (f.default !== undefined) args[name] = f.default;
  if (spec.passThrough) return parsePassThrough(spec, argv, args);
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      args._.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-' || /^-\d/.test(token)) {
      args._.push(token);
      continue;
    }
    if (isHelp(token)) return 'help';
    if (token === '--version') return 'version';
    let name: string;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      name = eq === -1 ? token.slice(2) : token.slice(2, eq);
      inline = eq === -1 ? undefined : token.slice(eq + 1);
    } else {
      if (token.length !== 2) return undefined;
      const long = byAlias.get(token[1]!);
      if (!long) return undefined;
      name = long;
    }
    let negated = false;
    if (!flags[name] && name.startsWith('no-') && flags[name.slice(3)]?.type === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const flag = flags[name] ?? flags[camel];
    if (!flag) return undefined; // unknown: let yargs speak
    if (flag.type === 'boolean') {
      if (inline !== undefined) return undefined;
      args[name] = !negated;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || negated) return undefined;
    if (flag.choices && !flag.choices.includes(value)) return undefined;
    if (flag.type === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) return undefined;
      args[name] = n;
    } else {
      args[name] = value;
    }
  }
  const positionals = spec.positionals ?? [];
  if (!positionals.some((p) => p.variadic) && args._.length > positionals.length) return undefined;
  return args;
}
