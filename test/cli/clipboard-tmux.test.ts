// Copy inside tmux, against a real tmux server (its own socket in a temp dir, no config): the
// text must land in tmux's paste buffer, and sivtr must say only what really happened.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let socket: string;
let runs = 0;

const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8' });

/** Runs the CLI in a fresh tmux pane (so $TMUX is tmux's own) and waits for it to finish. */
function inPane(args: string[]): { code: number; stdout: string; stderr: string } {
  const n = ++runs;
  const base = join(tmp.path, `run${n}`);
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const script = `${quoted} >'${base}.out' 2>'${base}.err'; echo $? >'${base}.code'; tmux -S '${socket}' wait-for -S done${n}`;
  expect(tmux('new-window', '-d', script).status).toBe(0);
  expect(tmux('wait-for', `done${n}`).status).toBe(0);
  const read = (ext: string) => readFileSync(`${base}.${ext}`, 'utf8');
  return { code: Number(read('code')), stdout: read('out'), stderr: read('err') };
}

beforeAll(() => {
  if (!hasTmux) return;
  tmp = tempDir();
  socket = join(tmp.path, 'tmux.sock');
  writeLog(join(tmp.path, 'data'), 't', SAMPLE);
  // No desktop: DISPLAY and WAYLAND_DISPLAY stay unset, so tmux is the clipboard.
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_TERMINAL_ID: 't', SIVTR_CLIPBOARD: undefined });
  expect(tmux('new-session', '-d', '-x', '80', '-y', '24', 'sleep 600').status).toBe(0);
});
afterAll(() => {
  if (!hasTmux) return;
  tmux('kill-server');
  tmp.cleanup();
});

describe.skipIf(!hasTmux)('copy inside tmux (tmux defaults: allow-passthrough off)', () => {
  it('puts the text in the tmux paste buffer and says tmux passes it on', () => {
    expect(tmux('show-options', '-sv', 'set-clipboard').stdout.trim()).toBe('external');
    const r = inPane(['copy', 'out', '3']);
    expect(r).toEqual({ code: 0, stdout: '', stderr: 'copied 2 lines from #2 make (via tmux: its paste buffer and the terminal clipboard)\n' });
    expect(tmux('show-buffer').stdout).toBe('error: missing target\nmake: *** [all] Error 2');
  });

  it('with set-clipboard off, says the copy reached only the paste buffer, and doctor names the setting', () => {
    tmux('set-option', '-s', 'set-clipboard', 'off');
    try {
      const r = inPane(['copy', 'cmd', '4']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(
        'copied 1 line from #1 ls to the tmux paste buffer only: tmux set-clipboard is off — `tmux set -s set-clipboard external` (and the same line in ~/.tmux.conf) lets tmux pass copies to the terminal clipboard\n',
      );
      expect(tmux('show-buffer').stdout).toBe('ls');
      const doctor = inPane(['doctor']);
      expect(doctor.stdout).toMatch(/^!! {2}clipboard: tmux set-clipboard is off, so copies reach only the tmux paste buffer — `tmux set -s set-clipboard external`/m);
    } finally {
      tmux('set-option', '-s', 'set-clipboard', 'external');
    }
    expect(inPane(['doctor']).stdout).toMatch(/^ok {2}clipboard: the tmux paste buffer, passed on to the terminal clipboard \(set-clipboard external\)$/m);
  });

  it('never claims a copy when tmux cannot take it', () => {
    // A pane whose tmux server is gone: $TMUX points at a dead socket.
    const dead = spawnSync(process.execPath, [BIN, 'copy', 'cmd', '4'], { env: { ...env, TMUX: `${join(tmp.path, 'gone.sock')},1,0` }, cwd: tmp.path, encoding: 'utf8' });
    expect(dead.status).toBe(1);
    expect(dead.stderr).toMatch(/^sivtr: cannot copy: tmux refused the copy \(.+\) — use --print to write to stdout\n$/);
    expect(dead.stderr).not.toContain('copied');
  });
});
