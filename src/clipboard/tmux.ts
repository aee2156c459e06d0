// Inside tmux the pane is not the terminal: an OSC 52 written to it is tmux's to handle, and
// tmux's defaults drop it (`allow-passthrough off` for the wrapped form; `set-clipboard external`
// ignores applications' plain OSC 52). What tmux does support is `load-buffer -w`: the text
// becomes its paste buffer and, unless `set-clipboard` is off, tmux itself sends it to the outer
// terminal's clipboard.
import { spawnSync } from 'node:child_process';

type Env = NodeJS.ProcessEnv;

export type TmuxCopy = { ok: true; terminal: boolean } | { ok: false; reason: string };

function tmux(args: string[], env: Env, input?: string): { ok: boolean; out: string; err: string; missing: boolean } {
  const r = spawnSync('tmux', args, { env, input, encoding: 'utf8', timeout: 5000, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() || (r.error?.message ?? ''), missing };
}

export const insideTmux = (env: Env): boolean => Boolean(env.TMUX);

/** `set-clipboard` of the tmux server this pane belongs to: on, external, off, or undefined when unreachable. */
export function tmuxSetClipboard(env: Env): string | undefined {
  const r = tmux(['show-options', '-sv', 'set-clipboard'], env);
  return r.ok ? r.out.trim() : undefined;
}

export function tmuxCopy(text: string, env: Env): TmuxCopy {
  let r = tmux(['load-buffer', '-w', '-'], env, text);
  if (r.missing) return { ok: false, reason: 'inside tmux, but the `tmux` command is not on PATH' };
  // tmux before 3.2 has no -w: the paste buffer alone is still a copy.
  if (!r.ok && /-w|unknown flag|usage/i.test(r.err)) r = tmux(['load-buffer', '-'], env, text);
  if (!r.ok) return { ok: false, reason: `tmux refused the copy (${r.err || 'no reason given'})` };
  const setting = tmuxSetClipboard(env);
  return { ok: true, terminal: setting !== undefined && setting !== 'off' };
}

export const TMUX_CLIPBOARD_FIX = '`tmux set -s set-clipboard external` (and the same line in ~/.tmux.conf) lets tmux pass copies to the terminal clipboard';
