// PowerShell through node-pty with the real pwsh (the .NET global tool CI installs, docs/capture.md):
// hooks-only metadata, recorder mode through the PSReadLine wrapper, $LASTEXITCODE vs $?, multi-line
// input, no PSReadLine, a throwing user prompt. Windows-only paths get structural checks of sivtr.ps1.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import type { SessionEntry } from '../../src/session/entry.js';
import { BIN, tempDir } from '../helpers/cli.js';
import { have, HOOKS, NONCE, SENTINEL, ShellSession } from './harness.js';

const pwsh = have('pwsh');
if (!pwsh) process.stderr.write('SKIPPED: pwsh not found on PATH or in ~/.dotnet/tools — the PowerShell capture tests did not run (CI installs it: .ci/run)\n');

function logEntries(home: string): SessionEntry[] {
  const dir = join(home, 'data', 'terminals');
  const files = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  return loadLog(join(dir, files[0]!)).entries;
}

describe.skipIf(!pwsh)('pwsh hooks-only mode', () => {
  const tmp = tempDir('sivtr-pwsh-hooks-');
  let s: ShellSession;
  beforeAll(async () => {
    s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'hooks' });
    await s.ready();
    await s.run('echo hi');
    await s.run('');
    await s.run('cmd-does-not-exist');
    await s.run('sh -c "exit 3"');
    await s.run('Write-Output after-native');
    await s.run('Set-Location /tmp');
    s.write("if ($true) {\r'multi'\r"); // continuation lines: no prompt until the block closes
    await s.run('}');
    await s.exit();
  }, 90_000);
  afterAll(async () => {
    await s?.kill();
    tmp.cleanup();
  });

  it('appends one metadata line per command with prompt, cwd, time, duration and status', () => {
    const entries = logEntries(tmp.path);
    expect(entries.map((e) => [e.command, e.exit_code])).toEqual([
      ['echo hi', 0],
      ['cmd-does-not-exist', 1],
      ['sh -c "exit 3"', 3],
      ['Write-Output after-native', 0],
      ['Set-Location /tmp', 0],
      ["if ($true) {\n'multi'\n}", 0],
    ]);
    expect(entries[0]).toMatchObject({ prompt: `${SENTINEL}> `, output: '', cwd: tmp.path });
    expect(entries.at(-1)!.cwd).toBe('/tmp');
    expect(entries[0]!.ended_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    expect(entries[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('#43 a native program\'s code counts only when $LASTEXITCODE moved; a later cmdlet success is 0', () => {
    const entries = logEntries(tmp.path);
    expect(entries.find((e) => e.command === 'sh -c "exit 3"')!.exit_code).toBe(3);
    expect(entries.find((e) => e.command === 'Write-Output after-native')!.exit_code).toBe(0);
  });

  it('writes a private log under a terminal id unique across time', () => {
    const dir = join(tmp.path, 'data', 'terminals');
    const [name] = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
    expect(name).toMatch(/^[0-9a-f]{8}-\d+-\d{10}\.jsonl$/);
    expect(statSync(join(dir, name!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});

describe.skipIf(!pwsh)('pwsh under the recorder', () => {
  const tmp = tempDir('sivtr-pwsh-rec-');
  let s: ShellSession;
  beforeAll(async () => {
    s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'proxy' });
    await s.ready();
    await s.run('echo hi');
    await s.run('');
    await s.run('cmd-does-not-exist');
    await s.run('sh -c "exit 3"');
    await s.run('Set-Location /tmp');
    await s.run(`"a;b\\c"`);
    await s.run("Write-Output '日本語 🙂'");
    await s.exit();
  }, 90_000);
  afterAll(async () => {
    await s?.kill();
    tmp.cleanup();
  });

  it('records output, status and cwd from the PSReadLine wrapper and the prompt', () => {
    expect(s.entries.map((e) => [e.command, e.output, e.exit_code, e.cwd])).toEqual([
      ['echo hi', 'hi', 0, tmp.path],
      ['cmd-does-not-exist', expect.stringMatching(/^cmd-does-not-exist: The term 'cmd-does-not-exist' is not recognized/), 1, tmp.path],
      ['sh -c "exit 3"', '', 3, tmp.path],
      ['Set-Location /tmp', '', 0, tmp.path],
      [`"a;b\\c"`, 'a;b\\c', 0, '/tmp'],
      ["Write-Output '日本語 🙂'", '日本語 🙂', 0, '/tmp'],
    ]);
    expect(s.entries[0]!.prompt).toBe('P> ');
  });

  it('#20 `exit` makes no entry, and the hooks write no metadata line of their own', () => {
    expect(s.entries.some((e) => e.command === 'exit')).toBe(false);
    expect(() => readdirSync(join(tmp.path, 'data', 'terminals')).filter((n) => n.endsWith('.jsonl'))).not.toThrow();
    expect(readdirSync(join(tmp.path, 'data', 'terminals')).filter((n) => n.endsWith('.jsonl'))).toEqual([]);
  });
});

describe.skipIf(!pwsh)('pwsh edge cases', () => {
  it('#44 without PSReadLine: metadata only, no markers (never a wrong output slice)', async () => {
    const tmp = tempDir('sivtr-pwsh-noreadline-');
    try {
      const s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'proxy', before: 'Remove-Module PSReadLine', promptNeedle: 'P> ' });
      await s.ready();
      await s.run('echo plain');
      await s.run('sh -c "exit 2"');
      await s.exit();
      expect(s.entries).toEqual([]);
      expect(s.text).not.toContain(`133;C;sivtr=${NONCE}`);
      expect(logEntries(tmp.path).map((e) => [e.command, e.output, e.exit_code])).toEqual([
        ['echo plain', '', 0],
        ['sh -c "exit 2"', '', 2],
      ]);
    } finally {
      tmp.cleanup();
    }
  });

  it('a user prompt that throws falls back to "PS> " and recording continues', async () => {
    const tmp = tempDir('sivtr-pwsh-throw-');
    try {
      const s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'proxy', before: "function prompt { throw 'broken prompt' }" });
      await s.ready();
      await s.run('echo still');
      await s.exit();
      expect(s.entries.map((e) => [e.prompt, e.command, e.output])).toEqual([['PS> ', 'echo still', 'still']]);
    } finally {
      tmp.cleanup();
    }
  });

  it('`sivtr shell pwsh` end to end: the recorder writes the log, exit code propagates', async () => {
    const tmp = tempDir('sivtr-pwsh-shell-');
    try {
      const s = new ShellSession({ kind: 'pwsh', home: tmp.path, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', 'pwsh'] } });
      await s.ready();
      await s.run('Write-Output recorded');
      expect(await s.exit('exit 4')).toBe(4);
      expect(logEntries(tmp.path).map((e) => [e.command, e.output, e.exit_code])).toEqual([['Write-Output recorded', 'recorded', 0]]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('sivtr.ps1 structure (the Windows-only paths: ConPTY, Windows PowerShell 5.1)', () => {
  const ps1 = readFileSync(join(HOOKS, 'sivtr.ps1'), 'utf8');
  const promptBody = ps1.slice(ps1.indexOf('function global:prompt {'));

  it('reads $? and $LASTEXITCODE before anything else in the prompt', () => {
    const firstStatements = promptBody.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')).slice(1, 3);
    expect(firstStatements.map((l) => l.trim())).toEqual(['$ok = $global:?', '$native = $global:LASTEXITCODE']);
  });

  it('carries the nonce in every marker and unsets it from the environment', () => {
    expect(ps1).toContain('Remove-Item Env:SIVTR_NONCE');
    for (const m of ps1.match(/\]133;[ABCD][^"]*/g) ?? []) expect(m).toMatch(/sivtr=\$(n|\(\$global:__SivtrNonce\))/);
    expect(ps1).toMatch(/\]633;E;\$\(__SivtrOscEscape \$(command|line)\);\$n/);
  });

  it('writes UTF-8 without BOM through .NET, never Out-File or Add-Content (UTF-16 / ANSI in 5.1)', () => {
    expect(ps1).toContain('[IO.File]::AppendAllText');
    const code = ps1.split('\n').filter((l) => !l.trim().startsWith('#')).join('\n');
    expect(code).not.toMatch(/Out-File|Add-Content|>>/);
  });

  it('uses no PowerShell 7-only syntax on the 5.1 path (no `e escapes, no ternaries, no ?? or ?.)', () => {
    const code = ps1.split('\n').filter((l) => !l.trim().startsWith('#')).join('\n');
    expect(code).not.toMatch(/`e/);
    expect(code).not.toMatch(/\?\?|\?\./);
    expect(code).not.toMatch(/\) \? /);
  });

  it('wraps PSConsoleHostReadLine only when it exists and keeps the original prompt in a try/catch', () => {
    expect(ps1).toContain('Get-Command PSConsoleHostReadLine -ErrorAction SilentlyContinue');
    expect(ps1).toMatch(/try \{ \[string\]\(& \$global:__SivtrOriginalPrompt\) \} catch \{ 'PS> ' \}/);
  });
});
