// Delivery of copied text: the system clipboard (clipboardy), else OSC 52 to the controlling
// terminal (works over SSH and inside tmux), else a clear error pointing at --print.
import { closeSync, openSync, writeSync } from 'node:fs';

export type ClipboardResult = { via: 'system' | 'osc52' | 'none' } | { via: 'failed'; reason: string };

type Env = NodeJS.ProcessEnv;

function hasDesktop(env: Env): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

async function systemClipboard(text: string): Promise<void> {
  const { default: clipboard } = await import('clipboardy');
  await clipboard.write(text);
}

/** The OSC 52 sequence; inside tmux it is wrapped so tmux forwards it to the outer terminal. */
export function osc52(text: string, env: Env): string {
  const seq = `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
  if (!env.TMUX) return seq;
  return `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`;
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
      // fall through to the terminal
    }
  }
  if (process.platform !== 'win32' && writeToTerminal(osc52(text, env))) return { via: 'osc52' };
  return { via: 'failed', reason: hasDesktop(env) ? 'the system clipboard refused and no terminal is attached' : 'no system clipboard and no terminal attached' };
}
