// Wide characters under the real recorder: bash inside `sivtr shell` prints CJK progress lines and
// overwrites them with a carriage return; the log must hold what the terminal showed, column for
// column (a CJK character is two columns), and `sivtr copy` must return it.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, ShellSession } from './harness.js';

describe.skipIf(!have('bash'))('wide characters under sivtr shell bash', () => {
  it('records a CR-overwritten CJK line as the terminal displays it', async () => {
    const tmp = tempDir('sivtr-wide-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', 'bash'] } });
      await s.ready();
      await s.run(`printf '进度 %s\\r' 10% 50%; printf '进度 完成\\n'`);
      await s.run(`printf 'abcdefghij\\r中文\\n'`);
      await s.run(`printf '👨\\u200d👩\\u200d👧 e\\u0301te\\u0301 20%%\\r👨\\u200d👩\\u200d👧 done\\n'`);
      expect(await s.exit()).toBe(0);
      const dir = join(tmp.path, 'data', 'terminals');
      const log = readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
      const outputs = loadLog(join(dir, log)).entries.map((e) => e.output);
      // 👨‍👩‍👧 (2 columns), a space and `done` cover `👨‍👩‍👧 été `: the `20%` after it stays.
      expect(outputs).toEqual(['进度 完成', '中文efghij', '👨\u200d👩\u200d👧 done20%']);
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      const copied = runCli(['copy', 'out', '3', '--print'], { env });
      expect(copied.stdout.replace(/\n$/, '')).toBe('进度 完成');
    } finally {
      tmp.cleanup();
    }
  });
});
