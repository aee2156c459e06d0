// Text that reaches a live log without its newline (an editor, a write cut short) must never swallow
// the entry appended after it — in hooks-only mode (real bash, zsh, pwsh) and under `sivtr shell` —
// and the damage is salvaged once: the original kept beside the log, the warning said once, then gone.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, cleanEnv, runCli, runCliUnprivileged, tempDir, unprivilegedIsNobody } from '../helpers/cli.js';
import { have, ShellSession, type Kind } from './harness.js';

const DAMAGE = '{"prompt":"$ ","command":"cut short';

function terminalFiles(home: string): { logs: string[]; backups: string[] } {
  const dir = join(home, 'data', 'terminals');
  const names = readdirSync(dir);
  return {
    logs: names.filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, n)),
    backups: names.filter((n) => /\.jsonl\.corrupt-\d{8}T\d{6}Z(-\d+)?$/.test(n)).map((n) => join(dir, n)),
  };
}

/** Waits (polling, with a deadlock guard) until the recorder, which may write from a worker, has written `n` entries. */
async function entriesWritten(home: string, n: number): Promise<string> {
  for (let tries = 0; tries < 500; tries++) {
    const [log] = existsSync(join(home, 'data', 'terminals')) ? terminalFiles(home).logs : [];
    if (log && loadLog(log, { quiet: true }).entries.length >= n) return log;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the recorder never wrote ${n} entries`);
}

const cmd = (kind: Kind, word: string): string => (kind === 'pwsh' ? `Write-Output ${word}` : `echo ${word}`);

for (const kind of ['bash', 'zsh', 'pwsh'] as const) {
  describe.skipIf(!have(kind))(`${kind} hooks-only log damage`, () => {
    it('keeps the entry after an unterminated line; the reader salvages once, keeping the original', async () => {
      const tmp = tempDir(`sivtr-damage-${kind}-`);
      try {
        const s = new ShellSession({ kind, home: tmp.path, mode: 'hooks' });
        await s.ready();
        await s.run(cmd(kind, 'one'));
        const [log] = terminalFiles(tmp.path).logs;
        appendFileSync(log!, DAMAGE); // no newline
        await s.run(cmd(kind, 'two'));
        const damaged = readFileSync(log!, 'utf8');
        expect(damaged).toContain(`${DAMAGE}\n`);
        expect(loadLog(log!, { quiet: true }).entries.map((e) => e.command)).toEqual([cmd(kind, 'one'), cmd(kind, 'two')]);

        const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
        const first = runCli(['copy', 'cmd', '1', '--print'], { env });
        expect(first.stdout).toBe(`${cmd(kind, 'two')}\n`);
        expect(first.stderr).toMatch(/held an unreadable line: kept the original as \S+\.jsonl\.corrupt-\d{8}T\d{6}Z and blanked it/);
        const { backups } = terminalFiles(tmp.path);
        expect(backups).toHaveLength(1);
        expect(readFileSync(backups[0]!, 'utf8')).toBe(damaged);

        const second = runCli(['copy', 'cmd', '2', '--print'], { env });
        expect(second).toMatchObject({ code: 0, stdout: `${cmd(kind, 'one')}\n`, stderr: '' });
        await s.run(cmd(kind, 'three'));
        await s.exit();
        const after = loadLog(log!);
        expect(after.skipped).toBe(0);
        expect(after.entries.map((e) => e.command)).toEqual([cmd(kind, 'one'), cmd(kind, 'two'), cmd(kind, 'three')]);
        expect(runCli(['copy', 'cmd', '1', '--print'], { env })).toMatchObject({ stdout: `${cmd(kind, 'three')}\n`, stderr: '' });
      } finally {
        tmp.cleanup();
      }
    }, 60_000);
  });
}

for (const inline of [false, true]) {
  describe.skipIf(!have('bash'))(`sivtr shell bash log damage (recorder ${inline ? 'inline' : 'in a worker'})`, () => {
    it('keeps the entry after damage found mid-session and salvages it at that append', async () => {
      const tmp = tempDir('sivtr-damage-shell-');
      try {
        appendFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
        const s = new ShellSession({
          kind: 'bash',
          home: tmp.path,
          mode: 'proxy',
          command: { file: process.execPath, args: [BIN, 'shell', 'bash'] },
          env: inline ? { SIVTR_RECORDER_INLINE: '1' } : {},
        });
        await s.ready();
        await s.run('echo one');
        await s.run('echo two');
        const log = await entriesWritten(tmp.path, 2);
        expect(loadLog(log!).entries.map((e) => e.command)).toEqual(['echo one', 'echo two']); // both written before the damage
        appendFileSync(log!, `garbage line\n${DAMAGE}`);
        const damaged = readFileSync(log!, 'utf8');
        await s.run('echo three');
        await s.run('echo four');
        expect(await s.exit()).toBe(0);
        const after = loadLog(log!);
        expect(after.skipped).toBe(0);
        expect(after.entries.map((e) => [e.command, e.output])).toEqual([
          ['echo one', 'one'],
          ['echo two', 'two'],
          ['echo three', 'three'],
          ['echo four', 'four'],
        ]);
        const { backups } = terminalFiles(tmp.path);
        expect(backups).toHaveLength(1);
        expect(readFileSync(backups[0]!, 'utf8')).toBe(damaged);
        expect(s.text).toMatch(/\r+\nsivtr: \S+ held 2 unreadable lines: kept the original as \S+ and blanked them \(every valid entry stays\)\r+\n/);
        const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
        expect(runCli(['copy', 'out', '2', '--print'], { env })).toMatchObject({ code: 0, stdout: 'three\n', stderr: '' });
      } finally {
        tmp.cleanup();
      }
    }, 60_000);
  });
}

describe('a damaged log that cannot be changed', () => {
  it('is read with a warning each time, and no copy piles up', () => {
    const tmp = tempDir('sivtr-damage-ro-');
    try {
      const dir = join(tmp.path, 'data', 'terminals');
      mkdirSync(dir, { recursive: true });
      const log = join(dir, '1-1700000000.jsonl');
      writeFileSync(log, `${JSON.stringify({ prompt: '$ ', command: 'echo kept', output: 'kept' })}\ngarbage\n`);
      chmodSync(log, 0o444);
      if (unprivilegedIsNobody()) chmodSync(tmp.path, 0o755);
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      for (let i = 0; i < 2; i++) {
        const r = runCliUnprivileged(['copy', 'out', '--print'], { env });
        expect(r).toMatchObject({ code: 0, stdout: 'kept\n' });
        expect(r.stderr).toBe(`sivtr: skipped 1 unreadable line in ${log}\n`);
      }
      expect(terminalFiles(tmp.path).backups).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
