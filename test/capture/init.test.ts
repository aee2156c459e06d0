// `sivtr init` and `sivtr doctor` as a user runs them, then a new interactive shell started the way a
// terminal starts it: the rc block loads the hooks (metadata), or auto-starts `sivtr shell` (output).
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, ShellSession } from './harness.js';

function logs(home: string): string[] {
  const dir = join(home, 'data', 'terminals');
  return readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, n));
}

describe('sivtr init', () => {
  it('installs one marked block, idempotently; --status, --print and --uninstall', () => {
    const tmp = tempDir('sivtr-init-');
    try {
      const env = cleanEnv(tmp.path);
      writeFileSync(join(tmp.path, '.bashrc'), 'alias ll="ls -l"\n');
      expect(runCli(['init', 'bash', '--status'], { env }).code).toBe(1);
      expect(runCli(['init', 'bash'], { env }).code).toBe(0);
      expect(runCli(['init', 'bash'], { env }).code).toBe(0);
      const rc = readFileSync(join(tmp.path, '.bashrc'), 'utf8');
      expect(rc.startsWith('alias ll="ls -l"\n# >>> sivtr >>>\n')).toBe(true);
      expect(rc.match(/# >>> sivtr >>>/g)).toHaveLength(1);
      expect(rc).toContain('shell-hooks/sivtr.bash');
      const status = runCli(['init', 'bash', '--status'], { env });
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/hooks installed .*auto-start off/);
      const printed = runCli(['init', 'bash', '--print'], { env });
      expect(printed.stdout).toMatch(/^\[ -f '.*\/shell-hooks\/sivtr\.bash' \] && \. '.*sivtr\.bash'\n$/);
      runCli(['init', 'bash', '--auto-start'], { env });
      const auto = readFileSync(join(tmp.path, '.bashrc'), 'utf8');
      expect(auto.startsWith('# >>> sivtr auto-start >>>')).toBe(true);
      expect(auto).toContain('SIVTR_PTY_PROXY');
      runCli(['init', 'bash'], { env }); // a refresh keeps the auto-start choice
      expect(readFileSync(join(tmp.path, '.bashrc'), 'utf8')).toBe(auto);
      expect(runCli(['init', 'bash', '--uninstall'], { env }).code).toBe(0);
      expect(readFileSync(join(tmp.path, '.bashrc'), 'utf8')).toBe('alias ll="ls -l"\n');
    } finally {
      tmp.cleanup();
    }
  });

  it('--status says when an auto-start block cannot record: its launcher is gone, or it comes from an older sivtr', () => {
    const tmp = tempDir('sivtr-init-stale-');
    try {
      const bin = join(tmp.path, 'bin');
      mkdirSync(bin);
      symlinkSync(BIN, join(bin, 'sivtr'));
      const env = cleanEnv(tmp.path, { PATH: `${bin}:${process.env.PATH}` });
      expect(runCli(['init', 'bash', '--auto-start'], { env }).code).toBe(0);
      expect(runCli(['init', 'bash', '--status'], { env }).stdout).toMatch(/; auto-start on \(output recorded\)\n$/);
      rmSync(join(bin, 'sivtr'));
      expect(runCli(['init', 'bash', '--status'], { env }).stdout).toContain(
        `auto-start on, but its launcher ${join(bin, 'sivtr')} is gone, so new terminals are not recorded: run \`sivtr init bash --auto-start\` with the sivtr you use now`,
      );
      expect(runCli(['doctor'], { env }).stdout).toMatch(
        /^!! {2}bash: hooks installed in .*, auto-start on, but its launcher .*\/bin\/sivtr is gone, so new terminals are not recorded — run `sivtr init bash --auto-start` with the sivtr you use now$/m,
      );
      // The block sivtr 0.1.0 wrote: it exited the shell whenever the recorder did not say 222.
      const old = [
        '# >>> sivtr auto-start >>>',
        "if [[ $- == *i* ]]; then",
        `  '${process.execPath}' '${BIN}' shell bash --from-rc`,
        '  __sivtr_rc=$?',
        '  [[ $__sivtr_rc != 222 ]] && exit $__sivtr_rc',
        'fi',
        '# <<< sivtr auto-start <<<',
        '',
      ].join('\n');
      const rc = join(tmp.path, '.bashrc');
      writeFileSync(rc, old + readFileSync(rc, 'utf8').split('# <<< sivtr auto-start <<<\n')[1]);
      expect(runCli(['init', 'bash', '--status'], { env }).stdout).toContain('auto-start on, but its block comes from an older sivtr and closes new terminals when sivtr moves: run `sivtr init bash` to refresh it');
      expect(runCli(['init', 'bash'], { env }).code).toBe(0);
      expect(readFileSync(rc, 'utf8')).not.toContain('222');
      expect(runCli(['init', 'bash', '--status'], { env }).stdout).toMatch(/; auto-start on \(output recorded\)\n$/);
    } finally {
      tmp.cleanup();
    }
  });

  it('writes zsh\'s block to $ZDOTDIR/.zshrc and pwsh\'s to the PowerShell profile', () => {
    const tmp = tempDir('sivtr-init-z-');
    try {
      const zdot = join(tmp.path, 'zd');
      mkdirSync(zdot);
      const env = cleanEnv(tmp.path, { ZDOTDIR: zdot });
      expect(runCli(['init', 'zsh'], { env }).code).toBe(0);
      expect(readFileSync(join(zdot, '.zshrc'), 'utf8')).toContain('shell-hooks/sivtr.zsh');
      expect(runCli(['init', 'pwsh'], { env }).code).toBe(0);
      const profile = readFileSync(join(tmp.path, '.config', 'powershell', 'Microsoft.PowerShell_profile.ps1'), 'utf8');
      expect(profile).toMatch(/if \(Test-Path -LiteralPath '.*sivtr\.ps1'\) \{ \. '.*sivtr\.ps1' \}/);
      expect(runCli(['init', 'fish'], { env }).code).toBe(2);
    } finally {
      tmp.cleanup();
    }
  });

  it('doctor reports hooks, data dir, clipboard and node-pty, one line each', () => {
    const tmp = tempDir('sivtr-doctor-');
    try {
      const env = cleanEnv(tmp.path);
      runCli(['init', 'bash'], { env });
      const out = runCli(['doctor'], { env });
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/^ok {2}bash: hooks installed in .*\.bashrc/m);
      expect(out.stdout).toMatch(/^ok {2}data dir: .* is writable$/m);
      expect(out.stdout).toMatch(/^ok {2}clipboard: off/m);
      expect(out.stdout).toMatch(/^ok {2}node-pty: loadable/m);
      expect(out.stdout).toMatch(/^!! {2}this terminal: not recorded — /m);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('bash'))('a new bash after sivtr init', () => {
  const start = (home: string): ShellSession =>
    new ShellSession({ kind: 'bash', home, mode: 'proxy', command: { file: 'bash', args: ['-i'] } });

  it('records metadata with the hooks block alone', async () => {
    const tmp = tempDir('sivtr-init-hooks-');
    try {
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      writeFileSync(join(tmp.path, '.bashrc'), "PS1='@P@$ '\nHISTFILE=/dev/null\n");
      runCli(['init', 'bash'], { env });
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks', command: { file: 'bash', args: ['-i'] } });
      await s.ready();
      await s.run('echo hello');
      await s.exit();
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => [e.command, e.output, e.exit_code])).toEqual([['echo hello', '', 0]]);
    } finally {
      tmp.cleanup();
    }
  });

  it('records real output with --auto-start, and the terminal gets the shell\'s exit code', async () => {
    const tmp = tempDir('sivtr-init-auto-');
    try {
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      writeFileSync(join(tmp.path, '.bashrc'), "PS1='\\u$ '\nHISTFILE=/dev/null\n");
      runCli(['init', 'bash', '--auto-start'], { env });
      const s = start(tmp.path);
      await s.ready();
      await s.run('echo first');
      await s.run('echo second');
      await s.run('echo "proxy=$SIVTR_PTY_PROXY"');
      expect(await s.exit('exit 7')).toBe(7);
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => e.output)).toEqual(['first', 'second', 'proxy=1']);
      const copied = runCli(['copy', 'out', '2', '--print'], { env });
      expect(copied.stdout).toBe('second\n');
    } finally {
      tmp.cleanup();
    }
  });
});
