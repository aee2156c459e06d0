// Delivery of copied text: the system clipboard (clipboardy); else, inside tmux, tmux's own paste
// buffer (which tmux forwards to the terminal clipboard); else OSC 52 to the controlling terminal
// (works over SSH); else a clear error pointing at --print. A copy is reported only when it was
// handed to something that keeps it.
import { closeSync, openSync, writeSync } from 'node:fs';
import { insideTmux, tmuxCopy } from './tmux.js';

export type ClipboardResult =
  | { via: 'system' | 'osc52' | 'none' }
  /** In tmux's paste buffer; `terminal` when tmux also passes it to the terminal clipboard. */
  | { via: 'tmux'; terminal: boolean }
  | { via: 'failed'; reason: string };

type Env = NodeJS.ProcessEnv;

export function hasDesktop(env: Env): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

async function systemClipboard(text: string): Promise<void> {
  const { default: clipboard } = await import('clipboardy');
  await clipboard.write(text);
}

/** The OSC 52 sequence that sets the terminal's clipboard. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

function writeToTerminal(data: string): boolean {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'w');
  } catch {
    return false;
  }
  try {
    writeSync(fd, data);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

export async function copyToClipboard(text: string, env: Env = process.env): Promise<ClipboardResult> {
  const mode = env.SIVTR_CLIPBOARD ?? 'auto';
  if (mode === 'none') return { via: 'none' };
  if (mode !== 'osc52' && hasDesktop(env)) {
    try {
      await systemClipboard(text);
      return { via: 'system' };
    } catch {
      // fall through to tmux or the terminal
    }
  }
  if (insideTmux(env)) {
    const r = await tmuxCopy(text, env);
    return r.ok ? { via: 'tmux', terminal: r.terminal } : { via: 'failed', reason: r.reason };
  }
  if (process.platform !== 'win32' && writeToTerminal(osc52(text))) return { via: 'osc52' };
  return { via: 'failed', reason: hasDesktop(env) ? 'the system clipboard refused and no terminal is attached' : 'no system clipboard and no terminal attached' };
}
