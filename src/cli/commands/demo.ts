// sivtr demo — a self-contained tour in a temporary data dir: copy, diff and show run on a
// recorded session, each as the real CLI in its own process, exactly as a user would type them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'demo',
  usage: '',
  describe: 'a tour of sivtr on a recorded session, in a temporary data dir',
  flags: { keep: { type: 'boolean', describe: 'keep the temporary data dir and print its path' } },
};

/** The package root, whether this runs from dist/ or from src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function step(root: string, env: NodeJS.ProcessEnv, args: string[], why: string): number {
  const line = `$ sivtr ${args.join(' ')}`;
  const shown = process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${line}\x1b[0m` : line;
  process.stdout.write(`\n${shown}   # ${why}\n`);
  const result = spawnSync(process.execPath, [join(root, 'bin', 'sivtr.js'), ...args], { env, stdio: 'inherit' });
  return result.status ?? 1;
}

export async function run(args: ParsedArgs): Promise<number> {
  const root = packageRoot();
  const data = mkdtempSync(join(tmpdir(), 'sivtr-demo-'));
  try {
    mkdirSync(join(data, 'terminals'), { recursive: true, mode: 0o700 });
    copyFileSync(join(root, 'fixtures', 'demo', 'terminal.jsonl'), join(data, 'terminals', 'demo.jsonl'));
    const env: NodeJS.ProcessEnv = { ...process.env, SIVTR_DATA_DIR: data, SIVTR_CLIPBOARD: 'none' };
    delete env.SIVTR_SESSION_LOG;
    delete env.SIVTR_TERMINAL_ID;
    process.stdout.write(`sivtr demo — a recorded terminal session in ${data}\n`);
    // Agent transcripts are read in place from the bundled fixtures, never modified.
    env.CLAUDE_CONFIG_DIR = join(root, 'fixtures', 'agents', 'claude');
    const steps: [string[], string][] = [
      [['copy', 'out', '2', '--print'], 'the output before the last one'],
      [['diff', '1', '2'], 'what changed between the last two outputs'],
      [['show', 'terminal/current/2'], 'one record by its exact ref'],
      [['show', 'claude/7f3e0c2a/1'], 'a Claude Code turn, block by block, by the same kind of ref'],
    ];
    for (const [argv, why] of steps) {
      const code = step(root, env, argv, why);
      if (code !== 0) return code;
    }
    process.stdout.write('\nRecord your own terminal: `sivtr init bash` (or zsh, pwsh), then open a new terminal.\n');
    return 0;
  } finally {
    if (args.keep) process.stdout.write(`(kept ${data})\n`);
    else rmSync(data, { recursive: true, force: true });
  }
}
