// Entry point: pick the command, parse its flags on the fast path (help and version included;
// yargs only names what is wrong with a malformed invocation), run it, and turn any error into
// one line and an exit code.
import { SivtrError, warn } from '../errors.js';
import { guardClosedPipes } from './stdio.js';
import { maskedNote, note, revealSecrets } from './output.js';
import { loadCaptureRules, useCaptureRules } from '../session/capture-rules.js';
import { commands } from './commands/index.js';
import { commandHelp, mainHelp } from './help.js';
import { parseFast } from './parse-fast.js';
import type { ParsedArgs, CommandModule } from './spec.js';
import { unknownWord } from './suggest.js';
import { packageVersion } from './version.js';

async function printMainHelp(): Promise<void> {
  const specs = await Promise.all(commands.map(async (entry) => ({ entry, spec: (await entry.load()).spec })));
  process.stdout.write(mainHelp(specs));
}

async function resolve(argv: string[]): Promise<{ module: CommandModule; args: ParsedArgs } | undefined> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    await printMainHelp();
    return undefined;
  }
  if (first === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return undefined;
  }
  const entry = commands.find((c) => c.name === first || (c.aliases && first in c.aliases));
  if (!entry && !first.startsWith('-')) {
    const names = commands.filter((c) => !c.hidden).flatMap((c) => [c.name, ...Object.keys(c.aliases ?? {})]);
    throw unknownWord('command', first, names.filter((n) => n.length > 2), { display: (n) => `\`sivtr ${n}\``, otherwise: 'see `sivtr --help` for the commands' });
  }
  if (entry) {
    const module = await entry.load();
    const expanded = [...(entry.aliases?.[first] ?? []), ...rest];
    const args = parseFast(module.spec, expanded);
    if (args === 'help') {
      process.stdout.write(commandHelp(entry, module.spec));
      return undefined;
    }
    if (args === 'version') {
      process.stdout.write(`${packageVersion()}\n`);
      return undefined;
    }
    if (args) return { module, args };
  }
  const { parseWithYargs } = await import('./yargs-app.js');
  const parsed = await parseWithYargs(commands, argv, packageVersion());
  if (parsed && entry) {
    // yargs validated the alias form; prepend the words the alias stands for.
    parsed.args._ = [...(entry.aliases?.[first] ?? []), ...parsed.args._];
  }
  return parsed;
}

export async function main(argv: string[]): Promise<number> {
  guardClosedPipes();
  try {
    // `CMD | sivtr` with no arguments keeps the piped output, like `sivtr pipe`.
    if (argv.length === 0 && !process.stdin.isTTY) {
      const pipe = await import('./commands/pipe.js');
      return (await pipe.run({ _: [], bare: true })) ?? 0;
    }
    // Bare `sivtr` at a prompt: show what it can do rather than scold.
    const chosen = await resolve(argv);
    if (!chosen) return 0; // help or version was printed
    revealSecrets(chosen.args.reveal === true);
    useCaptureRules(await loadCaptureRules());
    return (await chosen.module.run(chosen.args)) ?? 0;
  } catch (error) {
    if (error instanceof SivtrError) {
      warn(error.message);
      if (process.env.SIVTR_DEBUG) process.stderr.write(`${error.stack}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    warn(`unexpected error: ${message} — rerun with SIVTR_DEBUG=1 and report it`);
    if (process.env.SIVTR_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 1;
  } finally {
    const masked = maskedNote();
    if (masked) note(masked);
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
