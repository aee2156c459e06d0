// Help, rendered from the same command specs the parsers read, without loading yargs: `--help`
// is the first thing a new user runs and should start as fast as any command.
import { GLOBAL_FLAGS, type CommandEntry, type CommandSpec, type FlagSpec } from './spec.js';

const HELP_FLAG: FlagSpec = { type: 'boolean', alias: 'h', describe: 'show help' };
const VERSION_FLAG: FlagSpec = { type: 'boolean', describe: 'show the version number' };

function columns(rows: [string, string][], indent = '  '): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`.trimEnd()).join('\n');
}

function flagRow(name: string, f: FlagSpec): [string, string] {
  const value = f.type === 'boolean' ? '' : f.choices ? ` ${f.choices.join('|')}` : f.type === 'number' ? ' N' : ' VALUE';
  const left = `${f.alias ? `-${f.alias}, ` : '    '}--${name}${value}`;
  const extra = f.default !== undefined && f.type !== 'boolean' ? ` (default: ${String(f.default)})` : '';
  return [left, f.describe + extra];
}

export function commandHelp(entry: CommandEntry, spec: CommandSpec): string {
  const parts = [`Usage: sivtr ${`${spec.name} ${spec.usage}`.trim()}${spec.flags ? ' [options]' : ''}`, spec.describe];
  const aliases = Object.entries(entry.aliases ?? {});
  if (aliases.length > 0) {
    parts.push(`Short forms:\n${columns(aliases.map(([alias, words]) => [`sivtr ${alias}`, `sivtr ${[spec.name, ...words].join(' ')}`]))}`);
  }
  if (spec.positionals?.length) parts.push(`Arguments:\n${columns(spec.positionals.map((p) => [p.name, p.describe]))}`);
  const flags: [string, FlagSpec][] = [...Object.entries(spec.flags ?? {}), ...Object.entries(GLOBAL_FLAGS), ['help', HELP_FLAG]];
  parts.push(`Options:\n${columns(flags.map(([name, f]) => flagRow(name, f)))}`);
  if (spec.examples?.length) parts.push(`Examples:\n${columns(spec.examples)}`);
  return parts.join('\n\n') + '\n';
}

export function mainHelp(entries: { entry: CommandEntry; spec: CommandSpec }[]): string {
  const visible = entries.filter(({ entry }) => !entry.hidden);
  const flags: [string, FlagSpec][] = [...Object.entries(GLOBAL_FLAGS), ['help', HELP_FLAG], ['version', VERSION_FLAG]];
  return (
    [
      'sivtr — reuse what just happened in a terminal or an agent session',
      'Usage: sivtr <command> [options]',
      `Commands:\n${columns(visible.map(({ spec }) => [`${spec.name} ${spec.usage}`.trim(), spec.describe]))}`,
      `Options:\n${columns(flags.map(([name, f]) => flagRow(name, f)))}`,
      'Run `sivtr <command> --help` for the options of one command.',
    ].join('\n\n') + '\n'
  );
}
