// The slow path: help, --version and every malformed invocation go through yargs, built from
// the same specs as the fast parser. Usage errors exit 2 with one line, never a stack trace.
import { UsageError } from '../errors.js';
import { GLOBAL_FLAGS, type CommandEntry, type CommandModule, type FlagSpec, type ParsedArgs } from './spec.js';

export type Parsed = { module: CommandModule; args: ParsedArgs };

function toOption(f: FlagSpec) {
  return { type: f.type, describe: f.describe, alias: f.alias, choices: f.choices as string[] | undefined, default: f.default };
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
  if (failure !== undefined) throw new UsageError(failure.split('\n')[0]!);
  if (output.length > 0) process.stdout.write(output.join('\n') + '\n');
  return chosen;
}
