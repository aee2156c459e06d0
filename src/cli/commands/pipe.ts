// `CMD | sivtr pipe` (or bare `CMD | sivtr`): pass stdin through and keep it in history.
import { SivtrError, UsageError } from '../../errors.js';
import { note } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'pipe',
  usage: '',
  describe: 'keep what arrives on stdin in history (and pass it through)',
  flags: {
    command: { type: 'string', describe: 'the command that produced the input, stored with it' },
  },
  examples: [['make 2>&1 | sivtr pipe', 'keep the build log']],
};

export async function run(args: ParsedArgs): Promise<number> {
  const bare = args.bare === true;
  if (process.stdin.isTTY) {
    if (bare) throw new UsageError('no command given');
    throw new SivtrError('nothing is piped into `sivtr pipe`', 'pipe a command into it: `make 2>&1 | sivtr pipe`');
  }
  const [{ teeStdin, keptFields }, { storeCapture }] = await Promise.all([import('../../capture/run-command.js'), import('../../store/keep-capture.js')]);
  const startedAt = Date.now();
  const text = await teeStdin();
  const fields = keptFields(text);
  if (fields.output.trim() === '') {
    if (bare) throw new UsageError('no command given');
    throw new SivtrError('stdin was empty — nothing kept', 'pipe a command that prints something');
  }
  const endedAt = new Date();
  const entry = await storeCapture({
    kind: 'pipe',
    command: typeof args.command === 'string' ? args.command : '',
    ...fields,
    cwd: process.cwd(),
    endedAt,
    durationMs: endedAt.getTime() - startedAt,
  });
  if (process.stderr.isTTY) note(`kept as history/${entry.id}`);
  return 0;
}
