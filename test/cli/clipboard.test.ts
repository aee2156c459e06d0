// Delivery: the system clipboard (a fake `xsel` stands in for the desktop, the one thing that
// cannot exist here), else OSC 52 to the controlling terminal (a real PTY), else an error.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  writeLog(join(tmp.path, 'data'), 't', SAMPLE);
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_CLIPBOARD: undefined });
});
afterAll(() => tmp.cleanup());

describe('clipboard delivery', () => {
  it('uses the system clipboard when a desktop is there, and confirms on stderr', () => {
    const bin = join(tmp.path, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const sink = join(tmp.path, 'clipboard.txt');
    writeFileSync(join(bin, 'xsel'), `#!/bin/sh\ncat > '${sink}'\n`);
    chmodSync(join(bin, 'xsel'), 0o755);
    const r = runCli(['copy', 'out', '3'], { env: { ...env, DISPLAY: ':99', PATH: `${bin}:${env.PATH}` } });
    expect(r.code).toBe(0);
    expect(readFileSync(sink, 'utf8')).toBe('error: missing target\nmake: *** [all] Error 2');
    expect(r.stderr).toBe('copied 2 lines from #2 make\n');
    expect(r.stdout).toBe('');
  });

  it('falls back to OSC 52 on the controlling terminal when there is no desktop', async () => {
    const pty = await import('node-pty');
    const child = pty.spawn(process.execPath, [BIN, 'copy', 'cmd', '4'], { env: env as Record<string, string>, cols: 80, rows: 24 });
    let out = '';
    child.onData((d) => (out += d));
    const code = await new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)));
    expect(code).toBe(0);
    expect(out).toContain(`\x1b]52;c;${Buffer.from('ls').toString('base64')}\x07`);
    expect(out).toContain('copied 1 line from #1 ls (via terminal OSC 52)');
  });

  it('fails with a pointer to --print when neither exists', () => {
    const r = runCli(['copy', 'out'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('sivtr: cannot copy: no system clipboard and no terminal attached — use --print to write to stdout\n');
  });
});
