// Print and/or copy a selected text, then confirm on stderr.
import { copyToClipboard } from '../clipboard/index.js';
import { SivtrError, warn } from '../errors.js';

export type Delivery = { print?: boolean; what: string; env?: NodeJS.ProcessEnv };

export async function deliver(text: string, opts: Delivery): Promise<void> {
  const env = opts.env ?? process.env;
  if (opts.print) process.stdout.write(text.endsWith('\n') || text === '' ? text : text + '\n');
  const result = await copyToClipboard(text, env);
  if (result.via === 'failed') {
    if (opts.print) {
      warn(`not copied: ${result.reason}`);
      return;
    }
    throw new SivtrError(`cannot copy: ${result.reason}`, 'use --print to write to stdout');
  }
  const lines = text === '' ? 0 : text.split('\n').length;
  if (result.via !== 'none') process.stderr.write(`copied ${lines} line${lines === 1 ? '' : 's'} from ${opts.what}${result.via === 'osc52' ? ' (via terminal OSC 52)' : ''}\n`);
}
