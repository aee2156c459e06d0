// docs/capture.md, edge cases: multi-line prompts keep their newline, a redrawn prompt counts once,
// and `exec >file` does not stop the markers (they go where the prompt goes, not to stdout).
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { have, ShellSession, type Kind } from './harness.js';

const kinds: Kind[] = ['bash', 'zsh'];
for (const kind of kinds) {
  describe.skipIf(!have(kind))(`${kind} prompts and redirections`, () => {
    it('#31 keeps a multi-line prompt; #37 records commands run while stdout goes to a file', async () => {
      const tmp = tempDir(`sivtr-prompts-${kind}-`);
      try {
        const ps1 = kind === 'bash' ? `PS1='top line\\nP$ '` : `PS1=$'top line\\nP%# '`;
        const s = new ShellSession({ kind, home: tmp.path, mode: 'proxy', before: ps1 });
        await s.ready();
        await s.run('echo x');
        await s.run('exec 3>&1 >out.txt');
        await s.run('echo to-file');
        await s.run('exec >&3');
        await s.run('cat out.txt');
        await s.exit();
        const sign = kind === 'bash' ? '$' : process.getuid?.() === 0 ? '#' : '%';
        expect(s.entries[0]!.prompt).toBe(`top line\nP${sign} `);
        expect(s.entries.map((e) => [e.command, e.output])).toEqual([
          ['echo x', 'x'],
          ['exec 3>&1 >out.txt', ''],
          ['echo to-file', ''],
          ['exec >&3', ''],
          ['cat out.txt', 'to-file'],
        ]);
      } finally {
        tmp.cleanup();
      }
    });
  });
}

describe.skipIf(!have('zsh'))('zsh prompt redraw', () => {
  // A widget that edits PS1 in place (as async themes do) keeps sivtr's markers around it.
  it('#30 a prompt redrawn before Enter (zle reset-prompt) is recorded once, the last drawing', async () => {
    const tmp = tempDir('sivtr-redraw-');
    try {
      const s = new ShellSession({
        kind: 'zsh',
        home: tmp.path,
        mode: 'proxy',
        before: `redraw() { PS1=\${PS1/P%#/after%#}; zle reset-prompt }\nzle -N redraw\nbindkey '^G' redraw`,
      });
      await s.ready();
      const before = s.prompts();
      s.write('\x07'); // Ctrl-G: the widget rebuilds the prompt and redraws it
      await s.waitFor((t) => s.prompts(t) > before, 'the redrawn prompt');
      await s.run('echo once');
      await s.exit();
      expect(s.entries.map((e) => [e.prompt, e.command, e.output])).toEqual([['after# '.replace('#', process.getuid?.() === 0 ? '#' : '%'), 'echo once', 'once']]);
    } finally {
      tmp.cleanup();
    }
  });
});
