// Writes terminal logs for CLI tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type RawEntry = Record<string, unknown> & { command: string; output: string };

export function writeLog(dataDir: string, id: string, entries: (RawEntry | string)[]): string {
  const dir = join(dataDir, 'terminals');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${id}.jsonl`);
  writeFileSync(path, entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n') + '\n', { mode: 0o600 });
  return path;
}

/** Four records: ls, a coloured error, an empty-output command, and a multi-line output. */
export const SAMPLE: RawEntry[] = [
  { prompt: 'me@box:~$ ', command: 'ls', output: 'a.txt\nb.txt', cwd: '/home/me', ended_at: '2026-11-29T10:00:00Z', duration_ms: 5, exit_code: 0 },
  { prompt: '\x1b[32mme@box\x1b[0m:~$ ', command: 'make', output: '\x1b[31merror\x1b[0m: missing target\nmake: *** [all] Error 2', exit_code: 2, cwd: '/home/me/proj' },
  { prompt: 'me@box:~$ ', command: 'true', output: '', exit_code: 0 },
  { prompt: 'me@box:~$ ', command: 'seq 1 10', output: '1\n2\n3\n4\n5\n6\n7\n8\n9\n10', exit_code: 0 },
];
