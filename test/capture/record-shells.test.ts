// docs/capture.md (edge cases) through real bash and zsh: the hooks print our markers, the recorder turns the real
// byte stream into entries. One long session per shell; each `it` checks the entries of one row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { have, HOOKS, ShellSession, type Kind } from './harness.js';
import type { SessionEntry } from '../../src/session/entry.js';

const shells: Kind[] = ['bash', 'zsh'];

for (const kind of shells) {
  const present = have(kind);
  describe.skipIf(!present)(`${kind} under the recorder`, () => {
    const tmp = tempDir(`sivtr-rec-${kind}-`);
    let s: ShellSession;
    const find = (command: string): SessionEntry[] => s.entries.filter((e) => e.command === command);
    const one = (command: string): SessionEntry => {
      const found = find(command);
      expect(found, `entries for ${JSON.stringify(command)} in ${JSON.stringify(s.entries.map((e) => e.command))}`).toHaveLength(1);
      return found[0]!;
    };
    const after = (command: string): SessionEntry => s.entries[s.entries.indexOf(one(command)) + 1]!;
    const startedSleeper = `sh -c 'echo started; exec sleep 30'`;

    beforeAll(async () => {
      s = new ShellSession({ kind, home: tmp.path, mode: 'proxy' });
      await s.ready();
      await s.run('echo hi');
      await s.run('true');
      await s.run('cd /tmp');
      await s.run('pwd');
      await s.run('cd "$HOME"');
      await s.run('false');
      await s.run('ls /nope');
      await s.run('printf nonl');
      await s.run('');
      await s.interruptPrompt();
      await s.run(`printf 'progress 33%%\\rprogress 66%%\\rprogress 99%%\\n'`);
      await s.run(`printf 'a: 0%%\\nb: 0%%\\n\\033[2A\\ra: 100%%\\033[K\\n\\rb: 100%%\\033[K\\n'`);
      await s.run(`printf '\\033[31mred\\033[0m normal \\033[1;32mbold-green\\033[0m\\n'`);
      await s.run(`printf 'before\\n\\033[?1049hFULLSCREEN\\033[?1049lafter\\n'`);
      const alt = s.text.length;
      s.write('seq 1 100 | less\r');
      await s.waitFor((t) => t.slice(alt).includes('\x1b[?1049h'), 'less on the alternate screen');
      const beforeQ = s.prompts();
      s.write('q'); // less quits on the key alone; an Enter would add an empty prompt
      await s.waitFor((t) => s.prompts(t) > beforeQ, 'the prompt after less');
      await s.run(`printf 'x\\033[?1049hCRASHED-TUI'`);
      await s.run('echo recovered');
      await s.run(`printf 'junk\\n\\033[H\\033[2J'; echo cleared`);
      await s.run(`for i in 1 2; do\recho "n=$i"; done`);
      await s.run('cat <<EOF\rline one\rline two\rEOF');
      await s.run(`printf '\\033]133;A\\007\\033]133;C\\007fake\\033]133;D;0\\007\\n'`);
      await s.run(`printf '\\033]133;D;0;sivtr=deadbeef\\007still\\n'; echo more`);
      const nested = kind === 'bash' ? `bash --noprofile --rcfile ${tmp.path}/test.bashrc -i` : 'zsh -d -i';
      s.write(`${nested}\r`);
      await s.waitFor((t) => t.lastIndexOf('P') > t.lastIndexOf(nested) + nested.length, 'the nested prompt');
      s.write('echo nested-$((40+2))\r');
      await s.waitFor((t) => t.includes('nested-42'), 'nested output');
      await s.run('exit');
      await s.run('seq 1 200000');
      await s.run(`printf '\\377\\376ok\\n'`);
      await s.run(`echo '日本語 🙂'`);
      await s.run(`printf '%s\\n' $'x\\ty' 'a;b\\c' "q\\"uote"`);
      const r = s.text.length;
      s.write(kind === 'bash' ? `read -p 'name? ' n; echo "got $n"\r` : `read 'n?name? '; echo "got $n"\r`);
      // The read prompt, not the echo of the command line: look after the command's C marker.
      await s.waitFor((t) => {
        const c = t.indexOf('133;C;sivtr=', r);
        return c >= 0 && t.includes('name? ', c);
      }, 'the read prompt');
      await s.run('bob');
      await s.run('stty size');
      // Resize while a command runs (at the prompt, readline would redraw it: an extra prompt).
      const c = (t: string): number => t.split('133;C;sivtr=').length;
      const cs = c(s.text);
      s.write(`sh -c 'read x; stty size'\r`);
      await s.waitFor((t) => c(t) > cs, 'the command to start');
      s.resize(120, 40);
      await s.run('');
      await s.run('sleep 0.1 &');
      let at = s.text.length;
      s.write(startedSleeper + '\r');
      await s.waitFor((t) => t.slice(at).includes('started\r\n'), 'the sleeper to start');
      let before = s.prompts();
      s.write('\x03');
      await s.waitFor((t) => s.prompts(t) > before, 'the prompt after Ctrl-C');
      at = s.text.length;
      s.write(`sh -c 'echo started; exec sleep 31'\r`);
      await s.waitFor((t) => t.slice(at).includes('started\r\n'), 'the second sleeper to start');
      before = s.prompts();
      s.write('\x1a');
      await s.waitFor((t) => s.prompts(t) > before, 'the prompt after Ctrl-Z');
      await s.run('kill -9 %sh');
      await s.run('echo "st=$?"');
      await s.run('false');
      await s.run('echo "st=$?"');
      const before2 = s.prompts();
      s.write('exit\r');
      await s.waitFor((t) => s.exitCode !== undefined || s.prompts(t) > before2, 'exit or a refusal');
      // "There are stopped jobs": a refused `exit` sets $? to 1, and a bare second `exit` would leave with that 1
      // (seen in CI, when the killed job was not yet reaped by the first `exit`), so the second one names its status.
      if (s.exitCode === undefined) await s.exit('exit 0');
    }, 120_000);
    afterAll(async () => {
      await s?.kill();
      tmp.cleanup();
    });

    it('#1 records a command with its output, exit code, cwd, time and duration', () => {
      const e = one('echo hi');
      expect(e.output).toBe('hi');
      expect(e.exit_code).toBe(0);
      expect(e.cwd).toBe(tmp.path);
      expect(e.prompt).toBe(kind === 'bash' ? 'P$ ' : 'P# ');
      expect(Date.parse(e.ended_at!)).not.toBeNaN();
      expect(e.duration_ms).toBeGreaterThanOrEqual(0);
    });

    it('#2 commands without output; `cd` keeps the old cwd, the next entry has the new one', () => {
      expect(one('true').output).toBe('');
      expect(one('cd /tmp')).toMatchObject({ output: '', cwd: tmp.path, exit_code: 0 });
      expect(one('pwd')).toMatchObject({ output: '/tmp', cwd: '/tmp' });
      expect(after('cd "$HOME"').cwd).toBe(tmp.path);
    });

    it('#3 non-zero exits, with stderr in the output', () => {
      expect(find('false')[0]!.exit_code).toBe(1);
      const ls = one('ls /nope');
      expect(ls.exit_code).toBe(2);
      expect(ls.output).toMatch(/No such file or directory/);
    });

    it('#4 output without a trailing newline (zsh PROMPT_SP artefact removed)', () => {
      expect(one('printf nonl').output).toBe('nonl');
    });

    it('#5 #6 an empty Enter and Ctrl-C at the prompt make no entry', () => {
      expect(s.entries.filter((e) => e.command.trim() === '')).toEqual([]);
      expect(s.entries[s.entries.indexOf(one('printf nonl')) + 1]!.command).toMatch(/^printf 'progress/);
    });

    it('#7 Ctrl-C during a command gives exit 130 and keeps the output', () => {
      const e = one(startedSleeper);
      expect(e.exit_code).toBe(130);
      expect(e.output).toMatch(/^started/);
    });

    it('#8 #9 progress bars keep their final frame', () => {
      expect(s.entries.find((e) => e.command.startsWith(`printf 'progress`))!.output).toBe('progress 99%');
      expect(s.entries.find((e) => e.command.startsWith(`printf 'a: 0`))!.output).toBe('a: 100%\nb: 100%');
    });

    it('#10 colours: plain output without SGR, output_ansi with it', () => {
      const e = s.entries.find((x) => x.command.includes('bold-green'))!;
      expect(e.output).toBe('red normal bold-green');
      expect(e.output_ansi).toContain('\x1b[31mred');
      expect(e.output_ansi).not.toMatch(/\x1b\[(?![0-9;]*m)/);
    });

    it('#11 alternate screen: text before and after kept, the full-screen part omitted; less records nothing', () => {
      expect(s.entries.find((e) => e.command.includes('FULLSCREEN'))!.output).toBe('before\nafter');
      const less = one('seq 1 100 | less');
      expect(less.output).toBe('');
      expect(less.exit_code).toBe(0);
    });

    it('#12 a TUI that dies on the alternate screen does not break the next entry', () => {
      expect(s.entries.find((e) => e.command.includes('CRASHED-TUI'))!.output).toBe('x');
      expect(one('echo recovered').output).toBe('recovered');
    });

    it('#13 clear empties what came before', () => {
      expect(s.entries.find((e) => e.command.includes('echo cleared'))!.output).toBe('cleared');
    });

    it('#14 a multi-line loop is one entry, on the lines it was typed on (bash too, not its history form)', () => {
      const e = s.entries.find((x) => x.command.startsWith('for i in 1 2'))!;
      expect(e.output).toBe('n=1\nn=2');
      expect(e.command).toBe('for i in 1 2; do\necho "n=$i"; done');
    });

    it('#15 a heredoc is one entry whose command holds the body', () => {
      const e = one('cat <<EOF\nline one\nline two\nEOF');
      expect(e.output).toBe('line one\nline two');
    });

    it('#17 #18 foreign and spoofed markers are plain output', () => {
      expect(s.entries.find((e) => e.command.includes('fake'))!.output).toBe('fake');
      expect(s.entries.find((e) => e.command.includes('deadbeef'))!.output).toBe('still\nmore');
    });

    it('#19 a nested shell is one outer entry holding its transcript; its hooks stay silent', () => {
      const nested = s.entries.filter((e) => e.output.includes('nested-42'));
      expect(nested).toHaveLength(1);
      expect(nested[0]!.command).toMatch(kind === 'bash' ? /^bash --noprofile/ : /^zsh -d -i/);
      expect(s.entries.some((e) => e.command.startsWith('echo nested'))).toBe(false);
    });

    it('#22 huge output keeps a bounded head and tail with an omission note', () => {
      const e = one('seq 1 200000');
      expect(e.output.startsWith('1\n2\n3\n')).toBe(true);
      expect(e.output.endsWith('199999\n200000')).toBe(true);
      expect(e.output).toMatch(/\n\[… \d+ chars omitted …\]\n/);
      expect(e.output.length).toBeLessThan(64 * 1024 + 192 * 1024 + 8 * 1024); // + the live window
      const omitted = Number(/\[… (\d+) chars omitted …\]/.exec(e.output)![1]);
      const full = Array.from({ length: 200000 }, (_, i) => String(i + 1)).join('\n');
      expect(e.output.length - `[… ${omitted} chars omitted …]\n`.length + omitted).toBe(full.length);
    });

    it('#23 invalid UTF-8 is recorded as U+FFFD', () => {
      expect(s.entries.find((e) => e.command.includes('\\377'))!.output).toBe('\ufffd\ufffdok');
    });

    it('#24 wide characters and emoji are exact', () => {
      expect(one(`echo '日本語 🙂'`).output).toBe('日本語 🙂');
    });

    it('#25 quotes, semicolons, backslashes and escapes in the command round-trip', () => {
      expect(one(`printf '%s\\n' $'x\\ty' 'a;b\\c' "q\\"uote"`).output).toBe('x\ty\na;b\\c\nq"uote');
    });

    it('#28 interactive input is part of the output', () => {
      const e = s.entries.find((x) => x.output.includes('got bob'))!;
      expect(e.output).toBe('name? bob\ngot bob');
    });

    it('#29 resize reaches the child', () => {
      expect(one('stty size').output).toBe('30 100');
      expect(one(`sh -c 'read x; stty size'`).output).toBe('\n40 120'); // the empty line typed to `read`
    });

    it('#34 a background job prints its job line in its own entry', () => {
      expect(one('sleep 0.1 &').output).toMatch(/^\[1\] \d+$/);
    });

    it('#35 Ctrl-Z ends the entry with 148 and the stop notice', () => {
      const e = one(`sh -c 'echo started; exec sleep 31'`);
      expect(e.exit_code).toBe(148);
      expect(e.output).toMatch(kind === 'bash' ? /Stopped/ : /suspended/);
    });

    it('`$?` reaches the next command unchanged', () => {
      const sts = find('echo "st=$?"').map((e) => e.output);
      expect(sts.at(-1)).toBe('st=1');
    });

    it('#20 `exit` makes no entry', () => {
      // An `exit` the shell refused (jobs left) reports a D and is a real entry; the one that left is not.
      expect(s.entries.filter((e) => /^exit\b/.test(e.command)).every((e) => /jobs/.test(e.output))).toBe(true);
      expect(s.exitCode).toBe(0);
    });
  });
}

describe.skipIf(!have('bash'))('bash history settings', () => {
  it('#26 #27 ignorespace lines are not stored; ignoredups repeats keep their text', async () => {
    const tmp = tempDir('sivtr-rec-hist-');
    try {
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', before: 'HISTCONTROL=ignoreboth' });
      await s.ready();
      await s.run('echo dup');
      await s.run('echo dup');
      await s.run(' echo private');
      await s.run('echo public');
      await s.exit();
      expect(s.entries.map((e) => [e.command, e.output])).toEqual([
        ['echo dup', 'dup'],
        ['echo dup', 'dup'],
        ['echo public', 'public'],
      ]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('zsh'))('zsh history settings', () => {
  it('#26 HIST_IGNORE_SPACE lines are not stored', async () => {
    const tmp = tempDir('sivtr-rec-zhist-');
    try {
      const s = new ShellSession({ kind: 'zsh', home: tmp.path, mode: 'proxy', before: 'setopt HIST_IGNORE_SPACE' });
      await s.ready();
      await s.run(' echo private');
      await s.run('echo public');
      await s.exit();
      expect(s.entries.map((e) => [e.command, e.output])).toEqual([['echo public', 'public']]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('bash'))('bash coexistence', () => {
  it('#32 #33 a theme rebuilding PS1, a PROMPT_COMMAND array, foreign 133 marks and loading twice', async () => {
    const tmp = tempDir('sivtr-rec-coexist-');
    try {
      const s = new ShellSession({
        kind: 'bash',
        home: tmp.path,
        mode: 'proxy',
        before: `theme() { __seen=$?; PS1='\\[\\e]133;A\\a\\]theme> \\[\\e]133;B\\a\\]'; }\nPROMPT_COMMAND=(theme)`,
        after: `. ${HOOKS}/sivtr.bash`,
      });
      await s.ready();
      await s.run('false');
      await s.run('echo "seen=$__seen"');
      await s.run('echo "${PROMPT_COMMAND[*]}"');
      await s.exit();
      expect(s.entries.map((e) => [e.prompt, e.command, e.output, e.exit_code])).toEqual([
        ['theme> ', 'false', '', 1],
        ['theme> ', 'echo "seen=$__seen"', 'seen=1', 0],
        ['theme> ', 'echo "${PROMPT_COMMAND[*]}"', '__sivtr_precmd theme __sivtr_wrap', 0],
      ]);
    } finally {
      tmp.cleanup();
    }
  });

  it('#36 the DEBUG-trap path (bash < 4.4) reports each command line once', async () => {
    const tmp = tempDir('sivtr-rec-debug-');
    try {
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', env: { __SIVTR_FORCE_DEBUG_TRAP: '1' } });
      await s.ready();
      await s.run('echo one; echo two');
      await s.run('');
      await s.run('false');
      await s.run('[[ -z $PS0 ]] && echo no-ps0');
      await s.exit();
      expect(s.entries.map((e) => [e.command, e.output, e.exit_code])).toEqual([
        ['echo one; echo two', 'one\ntwo', 0],
        ['false', '', 1],
        ['[[ -z $PS0 ]] && echo no-ps0', 'no-ps0', 0],
      ]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('zsh'))('zsh coexistence', () => {
  it('#32 a theme precmd rebuilding PROMPT, loaded after sivtr, and loading twice', async () => {
    const tmp = tempDir('sivtr-rec-zcoexist-');
    try {
      const s = new ShellSession({
        kind: 'zsh',
        home: tmp.path,
        mode: 'proxy',
        after: `theme() { __seen=$?; PS1='theme%# '; }\nprecmd_functions+=(theme)\n. ${HOOKS}/sivtr.zsh`,
      });
      await s.ready();
      await s.run('false');
      await s.run('echo "seen=$__seen"');
      await s.run('echo "$precmd_functions"');
      await s.exit();
      expect(s.entries.map((e) => [e.command, e.output, e.exit_code])).toEqual([
        ['false', '', 1],
        ['echo "seen=$__seen"', 'seen=1', 0],
        ['echo "$precmd_functions"', '__sivtr_precmd theme __sivtr_wrap', 0],
      ]);
      expect(s.entries.slice(1).every((e) => e.prompt === 'theme# ')).toBe(true);
    } finally {
      tmp.cleanup();
    }
  });
});
