// docs/capture.md, edge cases: without the recorder, the same hooks append one metadata-only SessionEntry per
// command from pure shell code — and fork nothing on the prompt path (counted with strace -f).
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import type { SessionEntry } from '../../src/session/entry.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, HOOKS, ShellSession, SENTINEL, type Kind } from './harness.js';

function logsIn(home: string): string[] {
  const dir = join(home, 'data', 'terminals');
  return readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, n));
}

function readEntries(home: string): { raw: string[]; entries: SessionEntry[]; path: string } {
  const [path] = logsIn(home);
  const text = readFileSync(path!, 'utf8');
  return { raw: text.split('\n').filter(Boolean), entries: loadLog(path!).entries, path: path! };
}

/** Attaches strace to `pid`; `stop()` returns the fork/clone lines it saw. */
async function traceForks(pid: number): Promise<{ stop: () => Promise<string[]> }> {
  const dir = tempDir('sivtr-strace-');
  const out = join(dir.path, 'trace');
  const child = spawn('strace', ['-f', '-e', 'trace=fork,vfork,clone,clone3', '-o', out, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('attached')) resolve();
    });
    child.on('exit', () => {
      if (err.includes('attached')) return; // stopped by stop(), which reads the trace
      dir.cleanup();
      reject(new Error(`strace exited: ${err}`));
    });
  });
  return {
    stop: async () => {
      const done = new Promise((r) => child.on('exit', r));
      child.kill('SIGINT');
      await done;
      try {
        return readFileSync(out, 'utf8').split('\n').filter((l) => /\b(clone3?|v?fork)\(/.test(l));
      } finally {
        dir.cleanup();
      }
    },
  };
}

const kinds: Kind[] = ['bash', 'zsh'];
for (const kind of kinds) {
  describe.skipIf(!have(kind))(`${kind} hooks-only mode`, () => {
    const tmp = tempDir(`sivtr-hooks-${kind}-`);
    let s: ShellSession;
    let forksDuringBuiltins: string[] = [];
    let forksDuringExternal: string[] = [];
    beforeAll(async () => {
      // bash: with every history rule sivtr has to apply itself, so the fork count covers them too.
      const bashRc = 'PROMPT_COMMAND="__user_saw=\\$?"\nHISTCONTROL=ignoreboth:erasedups\nHISTIGNORE="xyz*"';
      s = new ShellSession({ kind, home: tmp.path, mode: 'hooks', before: kind === 'bash' ? bashRc : 'setopt HIST_IGNORE_ALL_DUPS' });
      await s.ready();
      await s.run('echo hi');
      await s.run('');
      await s.run('false');
      await s.run('echo "st=$?"');
      await s.run(`printf '%s\\n' "a\\"b\\\\c" $'tab\\there'`);
      await s.run('cd /tmp');
      await s.run('cd "$HOME"');
      if (have('strace')) {
        const trace = await traceForks(s.pid);
        for (let i = 0; i < 20; i++) await s.run(i % 2 ? ':' : `echo n${i}`);
        forksDuringBuiltins = await trace.stop();
        const control = await traceForks(s.pid);
        await s.run('/bin/true');
        forksDuringExternal = await control.stop();
      }
      await s.exit();
    }, 90_000);
    afterAll(async () => {
      await s?.kill();
      tmp.cleanup();
    });

    it('appends one valid SessionEntry line per command, keys in contract order', () => {
      const { raw, entries } = readEntries(tmp.path);
      expect(entries.slice(0, 5).map((e) => e.command)).toEqual(['echo hi', 'false', 'echo "st=$?"', `printf '%s\\n' "a\\"b\\\\c" $'tab\\there'`, 'cd /tmp']);
      for (const line of raw) {
        const keys = Object.keys(JSON.parse(line));
        expect(keys).toEqual(['prompt', 'command', 'output', 'cwd', 'ended_at', 'duration_ms', 'exit_code']);
      }
      const first = entries[0]!;
      expect(first).toMatchObject({ prompt: `${SENTINEL}${kind === 'bash' ? '$' : process.getuid?.() === 0 ? '#' : '%'} `, output: '', cwd: tmp.path, exit_code: 0 });
      expect(first.ended_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
      expect(first.duration_ms).toBeGreaterThanOrEqual(0);
      expect(entries[1]!.exit_code).toBe(1);
    });

    it('keeps `$?` for the next command and for hooks after it', () => {
      expect(s.text).toContain('st=1');
    });

    it('gives `cd` the old cwd and the next command the new one', () => {
      const { entries } = readEntries(tmp.path);
      const cd = entries.findIndex((e) => e.command === 'cd /tmp');
      expect(entries[cd]!.cwd).toBe(tmp.path);
      expect(entries[cd + 1]!.cwd).toBe('/tmp');
    });

    it('names the log after a terminal id unique across time that differs from its first characters, private file and directory', () => {
      const { path } = readEntries(tmp.path);
      expect(path).toMatch(new RegExp(`/[0-9a-f]{8}-${s.pid}-\\d{10}\\.jsonl$`));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(tmp.path, 'data', 'terminals')).mode & 0o777).toBe(0o700);
      expect(statSync(join(tmp.path, 'data')).mode & 0o777).toBe(0o700);
    });

    it.skipIf(!have('strace'))('forks nothing per prompt (strace -f), while an external command does fork', () => {
      const { entries } = readEntries(tmp.path);
      expect(entries.filter((e) => e.command === ':' || /^echo n\d+$/.test(e.command))).toHaveLength(20);
      expect(forksDuringBuiltins).toEqual([]);
      expect(forksDuringExternal.length).toBeGreaterThan(0);
    });
  });
}

/** The history list as the shell holds it at the end, written by the shell itself. */
function historyOf(home: string): string[] {
  return readFileSync(join(home, 'hist.txt'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.includes('hist.txt'))
    .map((l) => l.replace(/^\s*\d+[* ] /, ''));
}

describe.skipIf(!have('bash'))('bash hooks-only: every command that ran, the history as the user set it', () => {
  async function session(rc: string, lines: string[]): Promise<{ recorded: string[]; history: string[]; text: string }> {
    const tmp = tempDir('sivtr-hooks-hist-');
    try {
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks', before: rc });
      await s.ready();
      for (const line of lines) await s.run(line);
      await s.run(' HISTTIMEFORMAT= builtin history > "$HOME/hist.txt"');
      await s.exit();
      const recorded = readEntries(tmp.path).entries.map((e) => e.command).filter((c) => !c.includes('hist.txt'));
      return { recorded, history: historyOf(tmp.path), text: s.text };
    } finally {
      tmp.cleanup();
    }
  }

  it('ignoreboth (the Debian default): repeats are recorded, a space-prefixed line is not; history keeps one of each', async () => {
    const { recorded, history } = await session('HISTCONTROL=ignoreboth', ['echo one', ' echo private', 'date +%N', 'date +%N', 'date +%N', 'echo two']);
    expect(recorded).toEqual(['echo one', 'date +%N', 'date +%N', 'date +%N', 'echo two']);
    expect(history).toEqual(['echo one', 'date +%N', 'echo two']);
  });

  it('ignoreboth with the DEBUG trap that stands in for PS0 on bash < 4.4', async () => {
    const { recorded, history } = await session('__SIVTR_FORCE_DEBUG_TRAP=1\nHISTCONTROL=ignoreboth', ['echo one', ' echo private', 'date +%N', 'date +%N', 'echo two']);
    expect(recorded).toEqual(['echo one', 'date +%N', 'date +%N', 'echo two']);
    expect(history).toEqual(['echo one', 'date +%N', 'echo two']);
  });

  it('ignoredups alone: repeats recorded; a space-prefixed line is an ordinary command', async () => {
    const { recorded, history } = await session('HISTCONTROL=ignoredups', ['echo same', 'echo same', ' echo spaced']);
    expect(recorded).toEqual(['echo same', 'echo same', ' echo spaced']);
    expect(history).toEqual(['echo same', ' echo spaced']);
  });

  it('erasedups: every run recorded; the history keeps only the latest of each line', async () => {
    const { recorded, history } = await session('HISTCONTROL=ignorespace:erasedups', ['echo a', 'echo b', 'echo a', ' echo hidden', 'echo a']);
    expect(recorded).toEqual(['echo a', 'echo b', 'echo a', 'echo a']);
    expect(history).toEqual(['echo b', 'echo a']);
  });

  it('HISTIGNORE: matching lines are recorded but stay out of the history, `&` included', async () => {
    const { recorded, history } = await session("HISTIGNORE='ls*:&:pw\\:d'", ['ls -d /', 'echo x', 'echo x', 'pw:d 2>/dev/null; true', 'echo y']);
    expect(recorded).toEqual(['ls -d /', 'echo x', 'echo x', 'pw:d 2>/dev/null; true', 'echo y']);
    expect(history).toEqual(['echo x', 'pw:d 2>/dev/null; true', 'echo y']);
  });

  it('a command that changes HISTCONTROL keeps its value; the history follows it from then on', async () => {
    const { recorded, history, text } = await session('HISTCONTROL=ignoreboth', ['echo x', 'HISTCONTROL=ignorespace', 'echo x', 'echo x', 'echo "hc=[${HISTCONTROL%%:*}]"']);
    expect(recorded).toEqual(['echo x', 'HISTCONTROL=ignorespace', 'echo x', 'echo x', 'echo "hc=[${HISTCONTROL%%:*}]"']);
    expect(history).toEqual(['echo x', 'HISTCONTROL=ignorespace', 'echo x', 'echo x', 'echo "hc=[${HISTCONTROL%%:*}]"']);
    expect(text).toContain('hc=[ignorespace]');
  });
});

describe.skipIf(!have('zsh'))('zsh hooks-only privacy and repeats', () => {
  it('#26 skips space-prefixed lines under HIST_IGNORE_SPACE; repeats recorded under HIST_IGNORE_DUPS and HIST_IGNORE_ALL_DUPS', async () => {
    for (const opts of ['setopt HIST_IGNORE_SPACE HIST_IGNORE_DUPS', 'setopt HIST_IGNORE_SPACE HIST_IGNORE_ALL_DUPS HIST_SAVE_NO_DUPS']) {
      const tmp = tempDir('sivtr-hooks-zpriv-');
      try {
        const s = new ShellSession({ kind: 'zsh', home: tmp.path, mode: 'hooks', before: opts });
        await s.ready();
        await s.run(' echo private');
        await s.run('echo public');
        for (let i = 0; i < 3; i++) await s.run('date +%N');
        await s.run('echo public');
        await s.exit();
        expect(readEntries(tmp.path).entries.map((e) => e.command), opts).toEqual(['echo public', 'date +%N', 'date +%N', 'date +%N', 'echo public']);
      } finally {
        tmp.cleanup();
      }
    }
  });
});

describe.skipIf(!have('bash'))('copy out from a hooks-only log', () => {
  it('says outputs are recorded only under the recorder and how to turn it on; copies nothing', async () => {
    const tmp = tempDir('sivtr-hooks-out-');
    try {
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks' });
      await s.ready();
      await s.run('false');
      await s.run('echo hi');
      await s.exit();
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      for (const args of [['copy', 'out', '2'], ['copy', 'out', '2', '--print'], ['copy', 'out']]) {
        const r = runCli(args, { env });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(args.length === 2 ? /^sivtr: no output recorded for #2 echo hi: / : /^sivtr: no output recorded for #1 false: /);
        expect(r.stderr).toContain('without the recorder sivtr keeps commands only');
        expect(r.stderr).toContain('`sivtr shell`');
        expect(r.stderr).toContain('`sivtr init bash --auto-start`');
      }
      expect(runCli(['copy', 'cmd', '2', '--print'], { env })).toMatchObject({ code: 0, stdout: 'false\n' });
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('pwsh'))('pwsh hooks-only repeats', () => {
  it('records a command run three times three times, with PSReadLine dropping duplicates from its history', async () => {
    const tmp = tempDir('sivtr-hooks-pwsh-dups-');
    try {
      const s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'hooks', before: 'Set-PSReadLineOption -HistoryNoDuplicates -HistorySaveStyle SaveNothing' });
      await s.ready();
      for (let i = 0; i < 3; i++) await s.run('Get-Date -Format fffffff');
      await s.exit();
      expect(readEntries(tmp.path).entries.map((e) => e.command)).toEqual(Array(3).fill('Get-Date -Format fffffff'));
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});

describe('pure-shell escaping round-trips', () => {
  const inputs = [...Array.from({ length: 127 }, (_, i) => `a${String.fromCharCode(i + 1)}b`), 'crlf\r\n', 'q"uo\\te', '\x1b[31mred\x1b[0m', '日本語 🙂', '', 'x;y z\\w'];
  for (const kind of kinds) {
    it.skipIf(!have(kind))(`${kind}: JSON and 633 escaping decode to the exact input`, async () => {
      const { spawnSync } = await import('node:child_process');
      const { unescape633 } = await import('../../src/capture/tokenizer.js');
      const tmp = tempDir('sivtr-escape-');
      try {
        const file = join(tmp.path, 'inputs');
        // NUL-separated inputs; each shell reads them back and prints both escapings, one per line.
        writeFileSync(file, inputs.map((s) => s + '\0').join(''));
        const script = `. ${join(HOOKS, kind === 'bash' ? 'sivtr.bash' : 'sivtr.zsh')}
          while IFS= read -r -d '' s; do __sivtr_json "$s"; printf '"%s"\\n' "$REPLY"; __sivtr_osc_escape "$s"; printf '%s\\n' "$REPLY"; done < ${file}`;
        const args = kind === 'bash' ? ['--noprofile', '--norc', '-i', '-c', script] : ['-f', '-i', '-c', script];
        const r = spawnSync(kind, args, { env: { PATH: process.env.PATH, HOME: tmp.path, TMPDIR: tmp.path, LANG: 'C.UTF-8', SIVTR_DATA_DIR: join(tmp.path, 'd') }, encoding: 'utf8' });
        const lines = r.stdout.split('\n');
        for (let i = 0; i < inputs.length; i++) {
          const expected = inputs[i]!.replace(/[\x01\x02]/g, (c) => (c === '\x01' || c === '\x02' ? '' : c));
          expect(JSON.parse(lines[2 * i]!), `json of ${JSON.stringify(inputs[i])}`).toBe(kind === 'bash' ? expected : inputs[i]);
          expect(lines[2 * i + 1]).not.toMatch(/[\x00-\x20;]/);
          expect(unescape633(lines[2 * i + 1]!), `633 of ${JSON.stringify(inputs[i])}`).toBe(inputs[i]);
        }
      } finally {
        tmp.cleanup();
      }
    });
  }
});
