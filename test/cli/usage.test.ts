// Usage errors, help and version as a user meets them: the CLI spawned as a process. A usage
// error exits 2 with one line that names the word and the nearest right one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';
import { providerNames } from '../../src/agents/registry.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  writeLog(join(tmp.path, 'data'), 't', SAMPLE);
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_TERMINAL_ID: 't' });
});
afterAll(() => tmp.cleanup());

describe('usage errors exit 2 with a did-you-mean hint', () => {
  const cases: [string[], string][] = [
    [['cpy'], 'unknown command "cpy" — did you mean `sivtr copy`?'],
    [['frobnicate'], 'unknown command "frobnicate" — see `sivtr --help` for the commands'],
    [['copy', 'otu'], 'unknown mode or source "otu" — did you mean out?'],
    [['copy', 'claude', 'otu'], 'unknown mode "otu" — did you mean out?'],
    [['copy', 'claud', 'out'], 'unknown mode or source "claud" — did you mean claude?'],
    // every known source, from the registry: a new provider must not need this line changed
    [['sessions', 'bogus'], `unknown source "bogus" — use ${['terminal', 'history', ...providerNames()].slice(0, -1).join(', ')} or ${providerNames().at(-1)}`],
    [['sessions', 'codx'], 'unknown source "codx" — did you mean codex?'],
    [['show', 'clude/1/2'], 'unknown source "clude" — did you mean claude?'],
    [['diff', '1', 'pii/abc/1'], 'unknown source "pii" — did you mean pi?'],
    [['import', 'gemni/abc'], 'unknown source "gemni" — did you mean gemini?'],
    [['init', 'fish'], 'unknown shell "fish" — use `sivtr init bash`, `sivtr init zsh` or `sivtr init pwsh`'],
    [['init', 'bsh'], 'unknown shell "bsh" — did you mean `sivtr init bash`?'],
    [['copy', '--pirnt'], 'unknown option --pirnt for `sivtr copy` — did you mean --print?'],
    [['--colour', 'never'], 'unknown option --colour — did you mean --color?'],
    [['copy', '--lines'], '--lines needs a value — keep lines: 5, 1:5, 1,3,8:12, -20: (last 20)'],
    [['search', 'x', '--format', 'jsno'], '--format jsno is not one of full, refs, json or timeline — did you mean json?'],
    [['sessions', '--limit', 'many'], '--limit needs a number — e.g. --limit 10'],
    [['show', 'a', 'b'], 'unexpected argument "b" — usage: sivtr show <ref> (see `sivtr show --help`)'],
    [['history', 'serch', 'x'], 'unknown history action "serch" — did you mean search?'],
    [['run', '-x'], 'unknown option -x for `sivtr run` — to run a command that starts with "-", put `--` before it: `sivtr run -- -x`'],
  ];
  it.each(cases)('%j', (args, message) => {
    const r = runCli(args, { env });
    expect(r.stderr).toBe(`sivtr: ${message}\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('help and version', () => {
  it('lists every command, and no help text cites a document outside the repository', () => {
    const main = runCli(['--help'], { env });
    expect(main.code).toBe(0);
    for (const name of ['copy', 'diff', 'show', 'import', 'sessions', 'search', 'run', 'pipe', 'history', 'shell', 'init', 'doctor', 'demo']) {
      expect(main.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      const one = runCli([name, '--help'], { env });
      expect(one.code, name).toBe(0);
      expect(one.stdout, name).toMatch(new RegExp(`^Usage: sivtr ${name}\\b`));
      expect(one.stdout, name).not.toMatch(/§|\.md\b/);
    }
    expect(main.stdout).not.toMatch(/§|\.md\b/);
  });

  it('documents flags, short forms and examples of a command', () => {
    const r = runCli(['copy', '-h'], { env });
    expect(r.stdout).toContain('  -p, --print ');
    expect(r.stdout).toContain('  sivtr co  sivtr copy out');
    expect(r.stdout).toContain('  sivtr copy out 2 --print  the output before the last, also to stdout');
    expect(runCli(['co', '--help'], { env }).stdout).toBe(r.stdout);
  });

  it('prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(runCli(['--version'], { env })).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('bare `sivtr` at a terminal prints the help and exits 0', async () => {
    const pty = await import('node-pty');
    const child = pty.spawn(process.execPath, [BIN], { env: env as Record<string, string>, cwd: tmp.path, cols: 200, rows: 50 });
    let out = '';
    child.onData((d) => (out += d));
    const code = await new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)));
    expect(code).toBe(0);
    expect(out.replace(/\r\n/g, '\n')).toBe(runCli(['--help'], { env }).stdout);
  });
});

describe('`sivtr run --`', () => {
  it('ends sivtr’s options: the rest is the command, options included', () => {
    const r = runCli(['run', '--', 'sh', '-c', 'echo hi; exit 3'], { env });
    expect(r.stdout.replace(/\r\n/g, '\n')).toBe('hi\n');
    expect(r.code).toBe(3);
    const kept = runCli(['history', 'show', '--json'], { env });
    expect(JSON.parse(kept.stdout).command).toBe("sh -c 'echo hi; exit 3'");
  });

  it('takes --help before the command, and passes it through after', () => {
    expect(runCli(['run', '--help'], { env }).stdout).toMatch(/^Usage: sivtr run /);
    const r = runCli(['run', 'sh', '-c', 'echo "$1"', 'sh', '--help'], { env });
    expect(r.stdout.replace(/\r\n/g, '\n')).toBe('--help\n');
  });
});
