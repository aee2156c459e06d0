// Print and/or copy a selected text, then confirm on stderr what really received it.
import { copyToClipboard } from '../clipboard/index.js';
import { TMUX_CLIPBOARD_FIX } from '../clipboard/tmux.js';
import { SivtrError } from '../errors.js';
import { confirm, masked, out, warn } from './output.js';
import { count } from '../plural.js';

export type Delivery = { print?: boolean; what: string; env?: NodeJS.ProcessEnv };

export async function deliver(raw: string, opts: Delivery): Promise<void> {
  const env = opts.env ?? process.env;
  const text = masked(raw);
  if (opts.print) out(text);
  const result = await copyToClipboard(text, env);
  if (result.via === 'failed') {
    if (opts.print) {
      warn(`not copied: ${result.reason}`);
      return;
    }
    throw new SivtrError(`cannot copy: ${result.reason}`, 'use --print to write to stdout');
  }
  if (result.via === 'none') return;
  const lines = text === '' ? 0 : text.split('\n').length;
  const copied = `copied ${count(lines, 'line')} from ${opts.what}`;
  if (result.via === 'tmux' && !result.terminal) {
    confirm(`${copied} to the tmux paste buffer only: tmux set-clipboard is off — ${TMUX_CLIPBOARD_FIX}`);
    return;
  }
  const how = result.via === 'osc52' ? ' (via terminal OSC 52)' : result.via === 'tmux' ? ' (via tmux: its paste buffer and the terminal clipboard)' : '';
  confirm(`${copied}${how}`);
}
