// `sivtr shell [SHELL]`: run the shell under the recorder, with the sivtr hooks loaded.
import { SivtrError } from '../../errors.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'shell',
  usage: '[shell]',
  describe: 'run your shell (default $SHELL) under the recorder: every command and its real output is kept',
  positionals: [{ name: 'shell', describe: 'bash, zsh, pwsh or a path to one' }],
  flags: {
    'from-rc': { type: 'boolean', describe: `started by an rc file: exit 222 instead of running a plain shell when the recorder cannot start` },
    'rc-status': { type: 'boolean', describe: 'for the auto-start block, whose file gets our stderr: print `sivtr-ran CODE` there once the shell ran to its end' },
    passthrough: { type: 'boolean', describe: 'record nothing, only pass the terminal through' },
  },
  examples: [
    ['sivtr shell', 'record this terminal until you exit the shell'],
    ['sivtr shell zsh', 'record a zsh session'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const { PROXY_UNAVAILABLE, runShellProxy } = await import('../../capture/proxy.js');
  const fromRc = args['from-rc'] === true;
  if (process.env.SIVTR_PTY_PROXY) {
    if (fromRc) return PROXY_UNAVAILABLE;
    throw new SivtrError('this terminal is already recorded by `sivtr shell`', 'exit this shell first, or run the shell directly');
  }
  // The recorder is a terminal proxy: with a pipe on either side the shell would wait for input
  // that never ends and our prompt markers would land in the pipe.
  const notTerminal = !process.stdin.isTTY ? 'stdin' : !process.stdout.isTTY ? 'stdout' : undefined;
  if (notTerminal) {
    throw new SivtrError(
      `sivtr shell needs a terminal, and its ${notTerminal} is not one`,
      'run it in a terminal; to keep the output of one command, use `sivtr run CMD`',
      2,
    );
  }
  const shell = args._[0] ?? process.env.SHELL ?? 'bash';
  return runShellProxy({
    shell,
    env: process.env,
    fromRc,
    reportRan: args['rc-status'] === true,
    passthrough: args.passthrough === true || Boolean(process.env.SIVTR_DISABLE),
  });
}
