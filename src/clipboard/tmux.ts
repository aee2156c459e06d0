// Inside tmux the pane is not the terminal: an OSC 52 written to it is tmux's to handle, and
// tmux's defaults drop it (`allow-passthrough off` for the wrapped form; `set-clipboard external`
// ignores applications' plain OSC 52). What tmux does support is `load-buffer -w`: the text
// becomes its paste buffer and, unless `set-clipboard` is off, tmux itself sends it to the outer
// terminal's clipboard.

type Env = NodeJS.ProcessEnv;

export type TmuxCopy = { ok: true; terminal: boolean } | { ok: false; reason: string };

type TmuxRun = { ok: boolean; out: string; err: string; missing: boolean };

// node:child_process loads only when tmux is asked: copy's start outside tmux does not pay for it.
async function tmux(args: string[], env: Env, input?: string): Promise<TmuxRun> {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('tmux', args, { env, input, encoding: 'utf8', timeout: 5000, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() || (r.error?.message ?? ''), missing };
}

export const insideTmux = (env: Env): boolean => Boolean(env.TMUX);

/** `set-clipboard` of the tmux server this pane belongs to: on, external, off, or undefined when unreachable. */
export async function tmuxSetClipboard(env: Env): Promise<string | undefined> {
  const r = await tmux(['show-options', '-sv', 'set-clipboard'], env);
  return r.ok ? r.out.trim() : undefined;
}

export async function tmuxCopy(text: string, env: Env): Promise<TmuxCopy> {
  let r = await tmux(['load-buffer', '-w', '-'], env, text);
  if (r.missing) return { ok: false, reason: 'inside tmux, but the `tmux` command is not on PATH' };
  // tmux before 3.2 has no -w: the paste buffer alone is still a copy.
  if (!r.ok && /-w|unknown flag|usage/i.test(r.err)) r = await tmux(['load-buffer', '-'], env, text);
  if (!r.ok) return { ok: false, reason: `tmux refused the copy (${r.err || 'no reason given'})` };
  const setting = await tmuxSetClipboard(env);
  return { ok: true, terminal: setting !== undefined && setting !== 'off' };
}

export const TMUX_CLIPBOARD_FIX = '`tmux set -s set-clipboard external` (and the same line in ~/.tmux.conf) lets tmux pass copies to the terminal clipboard';
