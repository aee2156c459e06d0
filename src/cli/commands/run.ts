// `sivtr run CMD [ARGS…]`: run a command as in a terminal and keep its output in history.
import { UsageError } from '../../errors.js';
import { note, warn } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'run',
  usage: '<command..>',
  describe: 'run a command, show its output, and keep it in history',
  positionals: [{ name: 'command', describe: 'the command and its arguments', variadic: true }],
  passThrough: true,
  examples: [
    ['sivtr run npm test', 'run the tests and keep their output (`sivtr history show`)'],
    ["sivtr run -- sh -c 'make && make test'", 'everything after `--` is the command, options included'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const argv = args._;
  if (argv.length === 0) throw new UsageError('no command given', 'usage: sivtr run CMD [ARGS…]');
  const [{ quoteCommand, runUnderPty, keptFields }, { storeCapture }] = await Promise.all([import('../../capture/run-command.js'), import('../../store/keep-capture.js')]);
  const cwd = process.cwd();
  const result = await runUnderPty(argv, process.env, cwd);
  try {
    const entry = await storeCapture({
      kind: 'run',
      command: quoteCommand(argv),
      ...keptFields(result.output),
      cwd,
      endedAt: result.endedAt,
      durationMs: result.durationMs,
      exitCode: result.exitCode,
    });
    if (process.stderr.isTTY) note(`kept as history/${entry.id}`);
  } catch (error) {
    // The command ran; failing to keep its output must not change what the caller sees.
    warn(`output not kept: ${(error as Error).message}`);
  }
  // Stopped by a hang-up or SIGTERM (passed on to the command), sivtr ends as the signal would.
  return result.stoppedBy !== undefined ? 128 + result.stoppedBy : result.exitCode;
}
