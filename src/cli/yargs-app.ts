// The slow path: help, --version and every malformed invocation go through yargs, built from
// the same specs as the fast parser. Usage errors exit 2 with one line, never a stack trace.
import { UsageError } from '../errors.js';
import { GLOBAL_FLAGS, type CommandEntry, type CommandModule, type CommandSpec, type FlagSpec, type ParsedArgs } from './spec.js';
import { hint, orList } from './suggest.js';

export type Parsed = { module: CommandModule; args: ParsedArgs };

function toOption(f: FlagSpec) {
  return { type: f.type, describe: f.describe, alias: f.alias, choices: f.choices as string[] | undefined, default: f.default, requiresArg: f.type !== 'boolean' };
}

/** yargs' verdict, said in sivtr's voice: the offending word, what would be right, one line. */
function explain(failure: string, spec: CommandSpec | undefined, argv: string[]): UsageError {
  const usage = spec ? `usage: sivtr ${`${spec.name} ${spec.usage}`.trim()} (see \`sivtr ${spec.name} --help\`)` : 'see `sivtr --help`';
  const flags = { ...GLOBAL_FLAGS, ...spec?.flags };
  const unknown = /^Unknown arguments?: (.*)$/.exec(failure);
  if (unknown) {
    const word = unknown[1]!.split(', ')[0]!;
    const asOption = argv.find((a) => a === `--${word}` || a.startsWith(`--${word}=`) || a === `-${word}`);
    if (asOption === undefined) return new UsageError(`unexpected argument "${word}"`, usage);
    const names = [...Object.keys(flags), 'help'];
    return new UsageError(`unknown option ${asOption.split('=')[0]}${spec ? ` for \`sivtr ${spec.name}\`` : ''}`, hint(word, names, { display: (n) => `--${n}`, otherwise: usage }));
  }
  const missing = /^Not enough arguments following: (.*)$/.exec(failure);
  if (missing) {
    const name = missing[1]!;
    return new UsageError(`--${name} needs a value`, flags[name]?.describe ?? usage);
  }
  const invalid = /Argument: (.*), Given: "(.*)", Choices: (.*)$/m.exec(failure);
  if (invalid) {
    const [, name, given] = invalid;
    const choices = [...(flags[name!]?.choices ?? [])];
    return new UsageError(`--${name} ${given} is not one of ${orList(choices)}`, hint(given!, choices, { otherwise: usage }));
  }
  return new UsageError(failure.replace(/\s*\n\s*/g, ' '), usage);
}

export async function parseWithYargs(entries: CommandEntry[], argv: string[], version: string): Promise<Parsed | undefined> {
  const { default: yargs } = await import('yargs');
  const modules = await Promise.all(entries.map(async (e) => ({ entry: e, module: await e.load() })));
  let chosen: Parsed | undefined;
  let failure: string | undefined;
  const app = yargs(argv)
    .scriptName('sivtr')
    .usage('sivtr — reuse what just happened in a terminal or an agent session\n\nUsage: sivtr <command> [options]')
    .version(version)
    .help()
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'no command given')
    .recommendCommands()
    .wrap(Math.min(100, process.stdout.columns || 100))
    .options(Object.fromEntries(Object.entries(GLOBAL_FLAGS).map(([k, f]) => [k, toOption(f)])))
    .fail((msg, err) => {
      failure = msg || err?.message || 'invalid arguments';
    })
    .exitProcess(false);
  for (const { entry, module } of modules) {
    const { spec } = module;
    const aliases = Object.keys(entry.aliases ?? {}).filter((a) => a !== spec.name);
    app.command({
      command: `${spec.name} ${spec.usage}`.trim(),
      aliases,
      describe: entry.hidden ? false : spec.describe,
      builder: (y) => {
        for (const [k, f] of Object.entries(spec.flags ?? {})) y.option(k, toOption(f));
        for (const p of spec.positionals ?? []) y.positional(p.name, { describe: p.describe, type: 'string' });
        if (spec.passThrough) y.parserConfiguration({ 'halt-at-non-option': true, 'unknown-options-as-args': true });
        for (const [cmd, what] of spec.examples ?? []) y.example(cmd, what);
        return y.strict(!spec.passThrough);
      },
      handler: (parsed) => {
        const positional = (parsed._ as (string | number)[]).slice(1).map(String);
        const named = (spec.positionals ?? []).flatMap((p) => {
          const v = parsed[p.name];
          return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
        });
        const args: ParsedArgs = { ...(parsed as Record<string, unknown>), _: [...named, ...positional] };
        chosen = { module, args };
      },
    });
  }
  const output: string[] = [];
  await app.parseAsync(argv, {}, (_err, _argv, out) => {
    if (out) output.push(out);
  });
  if (failure !== undefined) throw explain(failure, modules.find((m) => m.module.spec === chosen?.module.spec || m.entry.name === argv[0] || (m.entry.aliases && argv[0]! in m.entry.aliases))?.module.spec, argv);
  if (chosen) {
    for (const [name, f] of Object.entries(chosen.module.spec.flags ?? {})) {
      if (f.type === 'number' && Number.isNaN(chosen.args[name])) throw new UsageError(`--${name} needs a number`, `e.g. --${name} 10`);
    }
  }
  if (output.length > 0) process.stdout.write(output.join('\n') + '\n');
  return chosen;
}
