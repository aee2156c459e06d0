// `sivtr shell` at its end: the shell exits right after a large output, and nothing of it may be
// lost — not on the screen, not in the record (docs/capture.md, "sivtr run": the same wrapper).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, tempDir } from '../helpers/cli.js';
import { have, ShellSession } from './harness.js';

const N = 40_000;
const lines = Array.from({ length: N }, (_, i) => String(i + 1)).join('\n');

/** One `sivtr shell bash` that runs `seq` and exits on the same line; its screen and its last entry. */
async function seqThenExit(env: Record<string, string> = {}): Promise<{ code: number; screen: string; output: string }> {
  const tmp = tempDir('sivtr-shell-end-');
  try {
    // This PTY is the test's terminal, and it has the very race under test: were sivtr its session
    // leader, its exit would discard what the test had not yet read. An sh holds it after sivtr
    // ends, until the test has read the line it prints then (and so everything before it), so what
    // is missing from the screen is what sivtr did not write.
    const command = { file: '/bin/sh', args: ['-c', '"$@"; s=$?; echo "sivtr-ended=$s"; read _; exit $s', 'sh', process.execPath, BIN, 'shell', 'bash'] };
    const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', command, env });
    await s.ready();
    s.write(`seq 1 ${N}; echo the-end; exit 3\r`);
    await s.waitFor((t) => t.includes('sivtr-ended='), 'sivtr shell to end', 150_000);
    s.write('\n');
    const code = await s.ended();
    const dir = join(tmp.path, 'data', 'terminals');
    const [log] = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
    const entry = loadLog(join(dir, log!)).entries.at(-1)!;
    return { code, screen: s.text.replace(/\r+\n/g, '\n'), output: entry.output };
  } finally {
    tmp.cleanup();
  }
}

describe.skipIf(!have('bash'))('sivtr shell at its end', () => {
  it('a shell that exits right after a large output keeps all of it, on the screen and in the record', async () => {
    // The old recorder lost the end in every run of this on a busy machine; six at once, each whole.
    const runs = await Promise.all([0, 1, 2, 3, 4, 5].map(() => seqThenExit()));
    for (const r of runs) {
      expect(r.code).toBe(3);
      expect(r.screen).toContain(`${lines}\nthe-end\n`);
      // the shell ended inside the command line, so the entry is partial: its output ends with bash's "exit"
      expect(r.output.startsWith(`${lines}\nthe-end`)).toBe(true);
    }
  }, 180_000);

  it('a wrapper shell that cannot start leaves a working, recording shell and one line saying so', async () => {
    const r = await seqThenExit({ SIVTR_RUN_SHELL: '/bin/false' });
    expect(r.code).toBe(3);
    expect(r.screen).toMatch(/^sivtr: \/bin\/false could not host the recorder \(exit 1\); .+ SIVTR_RUN_SHELL .+\n/);
    expect(r.output.startsWith('1\n2\n3\n')).toBe(true);
  }, 60_000);
});
