// The picker driven as a person drives it: the real CLI in a real PTY, keys sent, the screen read
// back through a headless xterm. The desktop clipboard is the one fake (an `xsel` on PATH that
// writes to a file, as in test/cli/clipboard.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { pickerHome } from '../helpers/picker-home.js';
import { KEY, PtyScreen } from '../helpers/screen.js';

const LEAVE_ALT = '\x1b[?1049l';
const ENTER_ALT = '\x1b[?1049h';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let sink: string;
let runs = 0;

beforeAll(() => {
  tmp = tempDir();
  // CI=true on purpose: Ink alone would draw nothing until exit there (the chunk turns that off).
  ({ env, sink } = pickerHome(tmp.path, { CI: 'true' }));
});
afterAll(() => tmp.cleanup());

function picker(args: string[], opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv } = {}): PtyScreen {
  return new PtyScreen(process.execPath, [BIN, ...args], { env: opts.env ?? env, cols: opts.cols, rows: opts.rows });
}

const clipboard = (): string => readFileSync(sink, 'utf8');
const selectedRow = (s: PtyScreen): string => s.lines().find((l) => l.startsWith('›')) ?? '';
/** The first line of the preview: the one under its `──` rule. */
const previewTop = (s: PtyScreen): string => {
  const lines = s.lines();
  return lines[lines.findIndex((l) => l.startsWith('── ')) + 1] ?? '';
};

/**
 * Runs `script` in sh inside a PTY and keeps the terminal's stty state before and after it. The sh
 * leads the PTY's session, and its exit would discard what the test had not read yet (the picker's
 * last bytes, the main screen back): it waits for a line once it said SHELL-DONE, which
 * `finished()` sends when the screen shows that, then waits for its end.
 */
function inShell(script: string, opts: { env?: NodeJS.ProcessEnv } = {}) {
  const n = ++runs;
  const dir = join(tmp.path, `sh${n}`);
  mkdirSync(dir);
  const s = new PtyScreen('/bin/sh', ['-c', `stty -g > '${dir}/before'; ${script}; echo $? > '${dir}/code'; stty -g > '${dir}/after'; echo SHELL-DONE; read _`], { env: opts.env ?? env });
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8').trim() : '');
  const finished = async (): Promise<void> => {
    await s.untilText('SHELL-DONE');
    s.write('\n');
    await s.wait();
  };
  return { s, dir, finished, code: () => Number(read('code')), stty: () => ({ before: read('before'), after: read('after') }), read };
}
const cli = `'${process.execPath}' '${BIN}'`;

describe('the picker lists and previews', () => {
  it('shows this terminal newest first, the selected block in the preview with its colours, and the keys', async () => {
    const s = picker(['pick']);
    await s.untilText(/^> +4\/4$/m);
    const lines = s.lines();
    expect(lines[1]).toMatch(/^› +\$ seq 1 10$/);
    expect(lines[2]).toMatch(/^ +\$ true$/);
    expect(lines[3]).toMatch(/^ +\$ make +exit 2$/);
    expect(lines[4]).toMatch(/^ +\$ ls +11-29 \d\d:00$/);
    expect(s.text()).toContain('── terminal/t/4 · [block] input output cmd');
    expect(s.text()).toContain('me@box:~$ seq 1 10\n1\n2\n3');
    await s.type(KEY.down + KEY.down, '── terminal/t/2');
    // the record's own colours (red "error") reach the screen
    const row = s.lines().findIndex((l) => l.startsWith('error: missing target'));
    expect(row).toBeGreaterThan(0);
    const cell = s.term.buffer.active.getLine(row)!.getCell(0)!;
    expect(cell.getFgColor()).toBe(1);
    expect(s.raw).toContain(ENTER_ALT);
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('with NO_COLOR shows the same text without a colour', async () => {
    const s = picker(['pick'], { env: { ...env, NO_COLOR: '1' } });
    await s.untilText('Enter copy');
    await s.type(KEY.down + KEY.down, 'error: missing target');
    expect(s.raw).not.toMatch(/\x1b\[(3[0-7]|9[0-7]|38;)[0-9;]*m/);
    expect(selectedRow(s)).toMatch(/^› +\$ make/);
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('fits 80×24, a narrow 40×12, and puts the preview beside the list when wide', async () => {
    for (const [cols, rows] of [[80, 24], [40, 12], [30, 8], [120, 30]] as const) {
      const s = picker(['pick'], { cols, rows });
      await s.untilText('── terminal/t/4');
      const lines = s.lines();
      expect(lines.every((l) => [...l].length <= cols)).toBe(true);
      expect(lines[0]).toMatch(/^>/);
      // the last row stays empty (see app.ts), the keys are above it
      expect(lines[rows - 2]).toMatch(/^Enter copy/);
      expect(lines[rows - 1]).toBe('');
      if (cols >= 100) expect(lines[1]).toMatch(/^› +\$ seq 1 10 .*── terminal\/t\/4/);
      else expect(lines.findIndex((l) => l.startsWith('── terminal/t/4'))).toBeGreaterThan(1);
      s.write(KEY.esc);
      expect(await s.wait()).toBe(130);
    }
  });
});

describe('keys', () => {
  it('typing narrows the list, Backspace widens it, Ctrl-U clears the query', async () => {
    const s = picker(['pick']);
    await s.untilText('4/4');
    await s.type('ma', /^> ma +1\/4$/m);
    expect(selectedRow(s)).toMatch(/^› +\$ make/);
    await s.type('zz', /^> mazz +0\/4$/m);
    expect(s.text()).toContain('no match');
    await s.type(KEY.backspace + KEY.backspace, /^> ma +1\/4$/m);
    await s.type(' target', /^> ma target +1\/4$/m); // words match anywhere, the output included
    await s.type(KEY.ctrlU, /^> +4\/4$/m);
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('Up/Down and Ctrl-P/Ctrl-N move the selection and the preview follows', async () => {
    const s = picker(['pick']);
    await s.untilText('── terminal/t/4');
    await s.type(KEY.down, '── terminal/t/3');
    await s.type(KEY.ctrlN, '── terminal/t/2');
    await s.type(KEY.up, '── terminal/t/3');
    await s.type(KEY.ctrlP, '── terminal/t/4');
    await s.type(KEY.up, '── terminal/t/4'); // the top stays the top
    expect(selectedRow(s)).toMatch(/seq 1 10/);
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('a key rewrites only the rows it changed, in one synchronized update', async () => {
    const s = picker(['pick']);
    await s.untilText(/^> +4\/4$/m);
    const from = s.raw.length;
    await s.type(KEY.down, '── terminal/t/3');
    const written = s.raw.slice(from);
    expect(written.startsWith('\x1b[?2026h')).toBe(true);
    expect(written.endsWith('\x1b[?2026l')).toBe(true);
    // the row that lost the selection, the one that got it, the preview's rule (rows 2, 3, 12 at 80×24)
    for (const row of [2, 3, 12]) expect(written).toContain(`\x1b[${row};1H`);
    // not the query line, the rows that look as they did, the keys line, nor a cleared screen
    for (const row of [1, 4, 5, 23]) expect(written).not.toContain(`\x1b[${row};1H`);
    expect(written).not.toContain('\x1b[2J');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('Tab and Shift-Tab switch what is copied: block, input, output, cmd; Enter copies that', async () => {
    const s = picker(['pick']);
    await s.untilText('── terminal/t/4');
    await s.type('make', '1/4');
    await s.type(KEY.tab, 'block [input] output cmd');
    expect(s.text()).not.toContain('missing target');
    await s.type(KEY.tab, 'block input [output] cmd');
    await s.type(KEY.tab, 'block input output [cmd]');
    await s.type(KEY.tab, '[block] input output cmd');
    await s.type(KEY.shiftTab, 'block input output [cmd]');
    await s.type(KEY.shiftTab, 'block input [output] cmd');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('error: missing target\nmake: *** [all] Error 2');
    expect(s.raw).toContain('copied 2 lines from #2 make');
    // the confirmation comes after the picker left the alternate screen
    expect(s.raw.lastIndexOf(LEAVE_ALT)).toBeLessThan(s.raw.indexOf('copied 2 lines'));
    expect(s.onAltScreen()).toBe(false);
  });

  it('PgDn and PgUp scroll the preview', async () => {
    const s = picker(['pick'], { rows: 12 });
    await s.untilText('── terminal/t/4');
    expect(s.lines().some((l) => l === '10')).toBe(false);
    expect(previewTop(s)).toBe('me@box:~$ seq 1 10');
    s.write(KEY.pageDown);
    await s.until((x) => previewTop(x) === '3', 'a page down');
    s.write(KEY.pageDown + KEY.pageDown + KEY.pageDown);
    await s.until((x) => previewTop(x) === '7', 'the end, and no further');
    expect(s.lines()).toContain('10');
    s.write(KEY.pageUp);
    await s.until((x) => previewTop(x) === '4', 'a page up');
    s.write(KEY.pageUp + KEY.pageUp);
    await s.until((x) => previewTop(x) === 'me@box:~$ seq 1 10', 'the top');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('Ctrl-T marks two entries, Ctrl-D shows their diff (older side -), Esc goes back, Enter copies the diff', async () => {
    const s = picker(['pick']);
    await s.untilText('── terminal/t/4');
    await s.type(KEY.ctrlT, /^›1 +\$ seq 1 10/m);
    await s.type(KEY.down + KEY.down + KEY.down, '── terminal/t/1');
    await s.type(KEY.ctrlT, /^›2 +\$ ls/m);
    await s.type(KEY.ctrlD, '── diff terminal/t/1 → terminal/t/4');
    expect(s.text()).toContain('--- terminal/t/1 block');
    expect(s.text()).toContain('+++ terminal/t/4 block');
    expect(s.text()).toMatch(/^-me@box:~\$ ls$/m);
    expect(s.text()).toMatch(/^\+me@box:~\$ seq 1 10$/m);
    await s.type(KEY.esc, '── terminal/t/1 · [block]');
    await s.type(KEY.ctrlD, '── diff terminal/t/1 → terminal/t/4');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toContain('-me@box:~$ ls\n-a.txt\n-b.txt\n+me@box:~$ seq 1 10\n+1\n');
    expect(s.raw).toContain('from the diff of terminal/t/1 and terminal/t/4');
  });

  it('Ctrl-D with nothing marked says what to do', async () => {
    const s = picker(['pick']);
    await s.untilText('── terminal/t/4');
    await s.type(KEY.ctrlD, 'mark two entries with Ctrl-T first');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });
});

describe('terminals', () => {
  it('follows a resize: narrow stacks the preview under the list, wide puts it beside', async () => {
    const s = picker(['pick']);
    await s.untilText(/^> +4\/4$/m);
    expect(s.lines().findIndex((l) => l.startsWith('── terminal/t/4'))).toBeGreaterThan(1);
    s.child.resize(120, 30);
    s.term.resize(120, 30);
    await s.until((x) => /^› +\$ seq 1 10 .*── terminal\/t\/4/.test(x.lines()[1] ?? ''), 'the side-by-side layout');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  it('without a desktop (over SSH), Enter copies through OSC 52 to the terminal', async () => {
    const ssh: NodeJS.ProcessEnv = { ...env, SSH_CONNECTION: '10.0.0.1 5000 10.0.0.2 22' };
    delete ssh.DISPLAY;
    const s = picker(['pick'], { env: ssh });
    await s.untilText(/^> +4\/4$/m);
    await s.type('ls', '1/4');
    await s.type(KEY.tab + KEY.tab + KEY.tab, '[cmd]');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(s.raw).toContain(`\x1b]52;c;${Buffer.from('ls').toString('base64')}\x07`);
    expect(s.raw).toContain('copied 1 line from #1 ls (via terminal OSC 52)');
  });

  it('an unknown source is named before any screen is drawn', () => {
    const r = spawnSync(process.execPath, [BIN, 'pick', 'claud'], { env, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: unknown source "claud".*claude/);
  });
});

describe('what Enter does from each command', () => {
  it('pick --print writes the choice to stdout (a pipe) while the screen is on the terminal', async () => {
    const sh = inShell(`${cli} pick --print > '${tmp.path}/printed.txt'`);
    await sh.s.untilText('Enter print');
    await sh.s.type('seq', '1/4');
    await sh.s.type(KEY.tab + KEY.tab, '[output]');
    sh.s.write(KEY.enter);
    await sh.finished();
    expect(sh.code()).toBe(0);
    expect(readFileSync(join(tmp.path, 'printed.txt'), 'utf8')).toBe('1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n');
    expect(sh.stty().after).toBe(sh.stty().before);
  });

  it('copy --pick --regex filters the chosen text as copy does', async () => {
    const s = picker(['copy', 'out', '--pick', '--regex', 'Error']);
    await s.untilText('[output]');
    await s.type('make', '1/4');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('make: *** [all] Error 2');
  });

  it('with TERM=dumb says why it cannot draw', () => {
    const r = spawnSync(process.execPath, [BIN, 'pick'], { env: { ...env, TERM: 'dumb' }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: the picker needs a terminal that can move its cursor \(TERM is dumb\)/);
  });

  it('copy out --pick starts on the output and copies (and --print also writes it)', async () => {
    const s = picker(['copy', 'out', '--pick', '--print']);
    await s.untilText('block input [output] cmd');
    await s.type('ls', '1/4');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('a.txt\nb.txt');
    expect(s.raw).toContain('a.txt\r\nb.txt\r\n');
  });

  it('show --pick prints the chosen record as show does', async () => {
    const sh = inShell(`${cli} show --pick > '${tmp.path}/shown.txt'`);
    await sh.s.untilText('Enter show');
    await sh.s.type('make', '1/4');
    sh.s.write(KEY.enter);
    await sh.finished();
    expect(sh.code()).toBe(0);
    expect(readFileSync(join(tmp.path, 'shown.txt'), 'utf8')).toBe('me@box:~$ make\nerror: missing target\nmake: *** [all] Error 2\n');
  });

  it('diff --pick: Enter on a second entry after marking one prints their diff', async () => {
    const sh = inShell(`${cli} diff --pick > '${tmp.path}/diff.txt'`);
    await sh.s.untilText('Enter diff');
    await sh.s.type(KEY.ctrlT, /^›1/m);
    await sh.s.type(KEY.down + KEY.down + KEY.down, '── terminal/t/1');
    await sh.s.type(KEY.enter, '── diff terminal/t/1 → terminal/t/4');
    sh.s.write(KEY.enter);
    await sh.finished();
    expect(sh.code()).toBe(0);
    const diff = readFileSync(join(tmp.path, 'diff.txt'), 'utf8');
    expect(diff).toMatch(/^--- terminal\/t\/1 block\n\+\+\+ terminal\/t\/4 block\n@@/);
    expect(diff).not.toContain('\x1b[');
  });
});

describe('every way out gives the terminal back', () => {
  for (const [name, keys, code] of [['Esc', KEY.esc, 130], ['Ctrl-C', KEY.ctrlC, 130]] as const) {
    it(`${name}: exit ${code}, nothing copied, main screen and stty state restored`, async () => {
      writeFileSync(sink, 'untouched');
      const sh = inShell(`${cli} pick`);
      await sh.s.untilText('Enter copy');
      expect(sh.s.onAltScreen()).toBe(true);
      expect(sh.s.term.modes.wraparoundMode).toBe(false); // a row measured too narrow is cut, not wrapped into the next
      sh.s.write(keys);
      await sh.finished();
      expect(sh.code()).toBe(code);
      expect(sh.s.onAltScreen()).toBe(false);
      expect(sh.s.term.modes.wraparoundMode).toBe(true);
      expect(sh.s.raw).toContain(LEAVE_ALT);
      expect(sh.stty().after).toBe(sh.stty().before);
      expect(clipboard()).toBe('untouched');
    });
  }

  it('SIGTERM: exit 143, main screen and stty state restored', async () => {
    const sh = inShell(`${cli} pick & echo $! > '${tmp.path}/pid'; wait $!`);
    await sh.s.untilText('Enter copy');
    process.kill(Number(readFileSync(join(tmp.path, 'pid'), 'utf8')), 'SIGTERM');
    await sh.finished();
    expect(sh.code()).toBe(143);
    expect(sh.s.onAltScreen()).toBe(false);
    expect(sh.s.term.modes.wraparoundMode).toBe(true);
    expect(sh.stty().after).toBe(sh.stty().before);
  });

  for (const fault of ['render', 'uncaught']) {
    it(`a crash (${fault}): one line, exit 1, main screen and stty state restored`, async () => {
      const sh = inShell(`${cli} pick`, { env: { ...env, SIVTR_PICKER_FAULT: fault } });
      await sh.s.untilText('Enter copy');
      // Tab: a key only Ink's screen answers (the main bundle leaves it for Ink however early it
      // comes), so the fault is injected inside React and its event handling.
      sh.s.write(KEY.tab);
      await sh.finished();
      expect(sh.code()).toBe(1);
      expect(sh.s.onAltScreen()).toBe(false);
      expect(sh.s.term.modes.wraparoundMode).toBe(true);
      expect(sh.stty().after).toBe(sh.stty().before);
      expect(sh.s.text()).toMatch(/sivtr: .*fault injected for a test/);
      expect(sh.s.text()).not.toMatch(/^\s+at /m);
    });
  }

  it('without a terminal: one line and exit 2', () => {
    const r = spawnSync('setsid', ['-w', process.execPath, BIN, 'pick'], { env, encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('sivtr: the picker needs a terminal, and there is none here — run it at a prompt; in scripts use `sivtr copy`, `show` or `search`\n');
  });
});

describe('agents', () => {
  it("lists an agent's sessions and its current session's turns; Tab switches user / reply / tool output", async () => {
    const home = join(tmp.path, 'agent-home');
    mkdirSync(home);
    const agentEnv = { ...env, HOME: home, CLAUDE_CONFIG_DIR: join(ROOT, 'fixtures', 'agents', 'claude') };
    const s = picker(['pick', 'claude', '--global'], { env: agentEnv, cols: 120, rows: 30 });
    await s.untilText('Enter copy');
    expect(s.text()).toMatch(/claude +session · /);
    await s.type('session', /^> session +5\/8$/m);
    expect(s.lines().slice(1, 6).every((l) => / session · /.test(l))).toBe(true);
    // the selected session is read on demand: the preview follows once its transcript is in
    await s.untilText(/══ claude\/[0-9a-f]+\/1 ══/);
    await s.type(KEY.ctrlU, /^> +8\/8$/m);
    // a turn: Tab cycles what is copied from it
    await s.type('why does', /^> why does +1\/8$/m);
    await s.untilText('claude/7f3e0c2a/1 · [turn] user reply tool output');
    await s.type(KEY.tab, 'turn [user] reply tool output');
    await s.type(KEY.tab, 'turn user [reply] tool output');
    await s.type(KEY.tab, 'turn user reply [tool output]');
    expect(s.text()).toContain('1 failing: parse.test.ts');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('── p4 tool_output: Bash (error) ──\n1 failing: parse.test.ts');
  });

  it('Enter on an aspect with nothing in it says so and stays', async () => {
    const home = join(tmp.path, 'agent-home2');
    mkdirSync(home);
    const agentEnv = { ...env, HOME: home, CLAUDE_CONFIG_DIR: join(ROOT, 'fixtures', 'agents', 'claude') };
    const s = picker(['pick', 'claude', '--global'], { env: agentEnv, cols: 120, rows: 30 });
    await s.type('linter', /^> linter +1\/8$/m);
    await s.type(KEY.tab + KEY.tab + KEY.tab, '[tool output]');
    await s.type(KEY.enter, 'nothing to copy: no tool output here');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });
});

describe.skipIf(spawnSync('tmux', ['-V']).status !== 0)('inside tmux', () => {
  it('Enter copies into the tmux paste buffer', async () => {
    const socket = join(tmp.path, 'tmux.sock');
    const tmuxEnv = { ...env, DISPLAY: undefined };
    delete tmuxEnv.DISPLAY;
    const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env: tmuxEnv, encoding: 'utf8' });
    const s = new PtyScreen('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', `${cli} pick; echo PICK-EXIT=$?; sleep 600`], { env: tmuxEnv });
    try {
      await s.untilText('Enter copy');
      await s.type('make', '1/4');
      await s.type(KEY.tab + KEY.tab, '[output]');
      s.write(KEY.enter);
      await s.untilText('PICK-EXIT=0');
      expect(s.text()).toContain('copied 2 lines from #2 make (via tmux');
      expect(tmux('show-buffer').stdout).toBe('error: missing target\nmake: *** [all] Error 2');
    } finally {
      tmux('kill-server');
      s.kill();
    }
  });
});
