// `[capture]` in config.toml keeps chosen commands and patterns out of the terminal logs: the
// recorder never writes them; in hooks-only mode (pure shell, no process at the prompt) the line
// reaches the log and the next sivtr that reads the log rewrites it in place.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, ShellSession } from './harness.js';

const TOKEN = 'ghp_' + 'Zx9Qw2Er7Ty'.repeat(3) + 'abc';
const CONFIG = '[capture]\nignore_commands = ["vault"]\nmask_patterns = ["acme-[0-9]+"]\nmask_secrets = true\n';

function setUp(home: string): void {
  mkdirSync(join(home, '.config', 'sivtr'), { recursive: true });
  writeFileSync(join(home, '.config', 'sivtr', 'config.toml'), CONFIG);
}

function logText(home: string): string {
  const dir = join(home, 'data', 'terminals');
  return readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => readFileSync(join(dir, n), 'utf8')).join('');
}

async function typeCommands(s: ShellSession): Promise<void> {
  await s.ready();
  await s.run('vault read secret/db');
  await s.run('echo deploy acme-4711 done');
  await s.run(`echo GITHUB_TOKEN=${TOKEN}`);
  await s.run('echo after');
  await s.exit();
}

describe.skipIf(!have('bash'))('capture rules', () => {
  it('under the recorder: an ignored command and masked text never reach the log', async () => {
    const tmp = tempDir('sivtr-rules-rec-');
    try {
      setUp(tmp.path);
      writeFileSync(join(tmp.path, '.bashrc'), "PS1='r\\$ '\nHISTFILE=/dev/null\nvault() { echo \"vault-out-s3cr3t\"; }\n");
      await typeCommands(new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', 'bash'] } }));
      const log = logText(tmp.path);
      expect(log).toContain('echo after');
      for (const gone of ['vault', 'acme-4711', TOKEN]) expect(log).not.toContain(gone);
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      expect(runCli(['copy', 'cmd', '3..1', '--print'], { env }).stdout).toBe('echo deploy [kept out] done\necho GITHUB_TOKEN=[masked:github-token]\necho after\n');
      expect(runCli(['copy', 'out', '3', '--print'], { env }).stdout).toBe('deploy [kept out] done\n');
    } finally {
      tmp.cleanup();
    }
  }, 60_000);

  it('hooks only: the next read rewrites the log in place, and no reader shows what the rules keep out', async () => {
    const tmp = tempDir('sivtr-rules-hooks-');
    try {
      setUp(tmp.path);
      await typeCommands(new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks', before: 'vault() { :; }' }));
      // The hooks wrote what was typed: they cannot run a regex without a process at the prompt.
      expect(logText(tmp.path)).toContain('vault read secret/db');
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      const r = runCli(['copy', 'cmd', '3..1', '--print', '--reveal'], { env });
      expect(r.stdout).toBe('echo deploy [kept out] done\necho GITHUB_TOKEN=[masked:github-token]\necho after\n');
      const log = logText(tmp.path);
      for (const gone of ['vault', 'acme-4711', TOKEN]) expect(log).not.toContain(gone);
      expect(log).toContain('echo after');
      // Every line left is valid JSON or blank: the rewrite kept the log readable.
      for (const line of log.split('\n')) if (line.trim() !== '') expect(() => JSON.parse(line)).not.toThrow();
      expect(runCli(['search', 'vault', '--no-index', '--format', 'refs'], { env }).stdout).toBe('');
      expect(runCli(['search', 'deploy', '--format', 'json'], { env }).stdout).not.toContain('acme-4711');
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
