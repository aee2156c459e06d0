// `copy cmd A..B` and `copy in A..B` from real shells: a range of commands pastes as a script, one
// command per line, a multi-line command on its own lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, ShellSession, type Kind } from './harness.js';

function recorded(kind: Kind, home: string, rc: string): ShellSession {
  if (kind === 'zsh') {
    writeFileSync(join(home, '.zshrc'), rc);
    return new ShellSession({ kind, home, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', kind] }, env: { ZDOTDIR: home } });
  }
  writeFileSync(join(home, '.bashrc'), rc);
  return new ShellSession({ kind, home, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', kind] } });
}

/** Types a command over several lines (Enter after each), then waits for the prompt after it. */
async function typeLines(s: ShellSession, lines: string[]): Promise<void> {
  for (const line of lines.slice(0, -1)) s.write(line + '\r');
  await s.run(lines.at(-1)!);
}

describe.skipIf(!have('zsh'))('ranges of zsh commands under the recorder', () => {
  it('paste as a script: one command per line, the loop on its lines; `copy in` shows each prompt', async () => {
    const tmp = tempDir('sivtr-ranges-zsh-');
    try {
      const s = recorded('zsh', tmp.path, "PS1='z%% '\nPS2='more> '\nHISTFILE=/dev/null\n");
      await s.ready();
      await s.run('echo a');
      await typeLines(s, ['for i in 1 2; do', 'echo "n=$i"', 'done']);
      await s.run('echo b');
      await s.exit();
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      expect(runCli(['copy', 'cmd', '3..1', '--print'], { env }).stdout).toBe('echo a\nfor i in 1 2; do\necho "n=$i"\ndone\necho b\n');
      expect(runCli(['copy', 'in', '1..2', '--print'], { env }).stdout).toMatch(/^z% for i in 1 2; do\n(more> )?echo "n=\$i"\n(more> )?done\nz% echo b\n$/);
      expect(runCli(['copy', '1..2', '--print'], { env }).stdout).toMatch(/\nn=2\n\nz% echo b\nb\n$/);
    } finally {
      tmp.cleanup();
    }
  }, 30_000);
});
