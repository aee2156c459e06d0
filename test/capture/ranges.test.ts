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

for (const kind of ['bash', 'zsh'] as const) {
  describe.skipIf(!have(kind))(`ranges of ${kind} commands under the recorder`, () => {
    it('paste as a script, a loop on its own lines; `copy in` shows each prompt and the continuation prompts', async () => {
      const tmp = tempDir(`sivtr-ranges-${kind}-`);
      try {
        const ps1 = kind === 'zsh' ? 'z%% ' : 'b\\$ ';
        const s = recorded(kind, tmp.path, `PS1='${ps1}'\nPS2='more> '\nHISTFILE=/dev/null\n`);
        const p = kind === 'zsh' ? 'z% ' : `b${process.getuid?.() === 0 ? '#' : '$'} `;
        await s.ready();
        await s.run('echo a');
        await typeLines(s, ['for i in 1 2; do', 'echo "n=$i"', 'done']);
        await s.run('echo b');
        await s.exit();
        const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
        const copy = (...args: string[]): string => runCli(['copy', ...args, '--print'], { env }).stdout;
        expect(copy('cmd', '2')).toBe('for i in 1 2; do\necho "n=$i"\ndone\n');
        expect(copy('cmd', '3..1')).toBe('echo a\nfor i in 1 2; do\necho "n=$i"\ndone\necho b\n');
        expect(copy('in', '1..2')).toBe(`${p}for i in 1 2; do\nmore> echo "n=$i"\nmore> done\n${p}echo b\n`);
        expect(copy('2')).toBe(`${p}for i in 1 2; do\nmore> echo "n=$i"\nmore> done\nn=1\nn=2\n`);
        expect(copy('in', '3')).toBe(`${p}echo a\n`);
      } finally {
        tmp.cleanup();
      }
    }, 30_000);

    it('a line typed while the shell is busy between two lines (echoed twice on screen) is kept once', async () => {
      const tmp = tempDir(`sivtr-typeahead-${kind}-`);
      try {
        // A slow PS2 widens the moment between two lines in which the terminal itself echoes input.
        const ps1 = kind === 'zsh' ? 'z%% ' : 'b\\$ ';
        const s = recorded(kind, tmp.path, `${kind === 'zsh' ? 'setopt PROMPT_SUBST\n' : ''}PS1='${ps1}'\nPS2='$(sleep 0.4)more> '\nHISTFILE=/dev/null\n`);
        await s.ready();
        s.write('for i in 1 2; do\r');
        await new Promise((r) => setTimeout(r, 150));
        s.write('echo "n=$i"\r');
        await s.waitFor((t) => t.split('more> ').length - 1 >= 1 && t.includes('n=$i', t.lastIndexOf('more> ')), 'the second line after its prompt');
        await s.run('done');
        await s.exit();
        const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
        expect(runCli(['copy', 'cmd', '1', '--print'], { env }).stdout).toBe('for i in 1 2; do\necho "n=$i"\ndone\n');
        expect(runCli(['copy', 'out', '1', '--print'], { env }).stdout).toBe('n=1\nn=2\n');
      } finally {
        tmp.cleanup();
      }
    }, 30_000);
  });
}
