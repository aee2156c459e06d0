// `sivtr doctor`: one line per thing sivtr depends on — what is set up, and the fix when it is not.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { styles, useColor } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'doctor',
  usage: '',
  describe: 'check hooks, data dir, clipboard, node-pty and agent providers',
};

type Line = { ok: boolean; what: string; fix?: string };

export async function run(args: ParsedArgs): Promise<number> {
  const env = process.env;
  const lines: Line[] = [];
  const { initStatus } = await import('../../capture/install.js');
  // Judge only the shells this user has: hooks set up, or the login shell. A zsh that is merely
  // installed is not a problem of a bash user.
  const loginShell = basename(env.SHELL ?? '').replace(/\.exe$/i, '').replace(/^powershell$/, 'pwsh');
  let judged = 0;
  for (const shell of ['bash', 'zsh', 'pwsh'] as const) {
    const st = initStatus(shell, env);
    if (!st.hooks && loginShell !== shell) continue;
    judged++;
    lines.push(
      !st.hooks
        ? { ok: false, what: `${shell}: hooks not installed`, fix: `run \`sivtr init ${shell}\`` }
        : st.autoStartProblem
          ? { ok: false, what: `${shell}: hooks installed in ${st.rc}, auto-start on, but ${st.autoStartProblem.what}`, fix: st.autoStartProblem.fix }
          : { ok: true, what: `${shell}: hooks installed in ${st.rc}, auto-start ${st.autoStart ? 'on (output recorded)' : 'off (metadata only)'}` },
    );
  }

  if (judged === 0) lines.push({ ok: false, what: 'shells: no sivtr hooks installed', fix: 'run `sivtr init bash` (or zsh, pwsh)' });

  if (env.SIVTR_PTY_PROXY) lines.push({ ok: true, what: `this terminal: recorded with output by \`sivtr shell\` (${env.SIVTR_TERMINAL_ID ?? 'no id'})` });
  else if (env.SIVTR_TERMINAL_ID) lines.push({ ok: true, what: `this terminal: hooks loaded, metadata only (${env.SIVTR_TERMINAL_ID})`, fix: 'run `sivtr shell` to record output too' });
  else lines.push({ ok: false, what: 'this terminal: not recorded', fix: 'open a new terminal after `sivtr init`, or run `sivtr shell`' });

  const { dataDir, terminalsDir } = await import('../../session/paths.js');
  const data = dataDir(env);
  let dataOk = true;
  try {
    const dir = terminalsDir(env);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.doctor-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
    lines.push({ ok: true, what: `data dir: ${data} is writable` });
  } catch (error) {
    dataOk = false;
    lines.push({ ok: false, what: `data dir: ${data} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`, fix: 'fix its permissions or set SIVTR_DATA_DIR' });
  }

  const mode = env.SIVTR_CLIPBOARD ?? 'auto';
  const { hasDesktop } = await import('../../clipboard/index.js');
  const tmux = await import('../../clipboard/tmux.js');
  if (mode === 'none') lines.push({ ok: true, what: 'clipboard: off (SIVTR_CLIPBOARD=none); use --print' });
  else if (mode !== 'osc52' && hasDesktop(env)) lines.push({ ok: true, what: `clipboard: system clipboard, ${tmux.insideTmux(env) ? 'tmux' : 'OSC 52 to the terminal'} as fallback` });
  else if (tmux.insideTmux(env)) {
    const setting = await tmux.tmuxSetClipboard(env);
    if (setting === undefined) lines.push({ ok: false, what: 'clipboard: inside tmux, but tmux does not answer', fix: 'check that `tmux` is on PATH and this pane’s server is running' });
    else if (setting === 'off') lines.push({ ok: false, what: 'clipboard: tmux set-clipboard is off, so copies reach only the tmux paste buffer', fix: tmux.TMUX_CLIPBOARD_FIX });
    else lines.push({ ok: true, what: `clipboard: the tmux paste buffer, passed on to the terminal clipboard (set-clipboard ${setting})` });
  } else if (process.stdout.isTTY || existsSync('/dev/tty')) lines.push({ ok: true, what: 'clipboard: OSC 52 through the terminal (no desktop session)', fix: 'your terminal must allow OSC 52 clipboard writes' });
  else lines.push({ ok: false, what: 'clipboard: none available', fix: 'use --print' });

  try {
    await (await import('../../capture/pty.js')).loadPty();
    lines.push({ ok: true, what: 'node-pty: loadable, `sivtr shell` can record output' });
  } catch (error) {
    lines.push({ ok: false, what: `node-pty: cannot load (${(error as Error).message.split('\n')[0]})`, fix: 'reinstall sivtr with a C++ toolchain (python3, make, g++); hooks still record metadata' });
  }

  const { allProviders } = await import('../../agents/registry.js');
  for (const provider of allProviders()) {
    const where = provider.dataLocation?.(env);
    if (!where) continue;
    lines.push(existsSync(where) ? { ok: true, what: `${provider.name}: sessions at ${where}` } : { ok: true, what: `${provider.name}: nothing at ${where}` });
  }

  const { green, yellow } = styles(useColor(args));
  for (const line of lines) {
    const mark = line.ok ? `${green('ok')}  ` : `${yellow('!!')}  `;
    process.stdout.write(`${mark}${line.what}${line.fix ? ` — ${line.fix}` : ''}\n`);
  }
  return dataOk ? 0 : 1;
}
