// The home the picker tests run the real CLI in: the sample terminal log and the one fake, a
// desktop clipboard (an `xsel` on PATH that writes what it is given to a file).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv } from './cli.js';
import { SAMPLE, writeLog } from './terminal-log.js';

export function pickerHome(dir: string, extra: NodeJS.ProcessEnv = {}): { env: NodeJS.ProcessEnv; sink: string } {
  writeLog(join(dir, 'data'), 't', SAMPLE);
  const bin = join(dir, 'fakebin');
  mkdirSync(bin, { recursive: true });
  const sink = join(dir, 'clipboard.txt');
  writeFileSync(join(bin, 'xsel'), `#!/bin/sh\ncat > '${sink}'\n`);
  chmodSync(join(bin, 'xsel'), 0o755);
  const env = cleanEnv(dir, { SIVTR_DATA_DIR: join(dir, 'data'), SIVTR_TERMINAL_ID: 't', SIVTR_CLIPBOARD: undefined, DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}`, ...extra });
  return { env, sink };
}
