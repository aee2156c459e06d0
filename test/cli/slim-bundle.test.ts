// `search` and `sessions` run from slim bundles (dist/sivtr-<command>.cjs, only their own code);
// every answer, the usage errors yargs words included, must be the full bundle's.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir('sivtr-slim-');
  const data = join(tmp.path, 'data');
  env = cleanEnv(join(tmp.path, 'home'), { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  mkdirSync(env.HOME!, { recursive: true });
  writeLog(data, 'term-1', [...SAMPLE, { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Connection refused', exit_code: 7 }]);
});
afterAll(() => tmp.cleanup());

const run = (file: string, args: string[]) => {
  const r = spawnSync(process.execPath, [file, ...args], { env, cwd: env.HOME, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('slim bundles', () => {
  it('exist for search and sessions, each smaller than the full bundle', () => {
    const full = statSync(join(ROOT, 'dist', 'sivtr.cjs')).size;
    for (const command of ['search', 'sessions']) expect(statSync(join(ROOT, 'dist', `sivtr-${command}.cjs`)).size).toBeLessThan(full * 0.7);
  });

  it('are plain ASCII: one other character makes V8 decode and keep the whole source as two-byte text at every start', () => {
    for (const command of ['search', 'sessions']) {
      const bytes = readFileSync(join(ROOT, 'dist', `sivtr-${command}.cjs`));
      const at = bytes.findIndex((b) => b > 0x7f);
      expect(at === -1 ? '' : bytes.subarray(Math.max(0, at - 40), at + 8).toString('utf8'), `a character outside ASCII in sivtr-${command}.cjs (escape it as \\uXXXX in the source)`).toBe('');
    }
  });

  it.each([
    ['search', 'refused'],
    ['search', 'refused', '--format', 'json'],
    ['search', '--limit=1', 'make'],
    ['search', 'terminal', '--status', 'failure', '--format', 'refs'],
    ['search', '--help'],
    ['search', '--limit'],
    ['search', '--bogus', 'x'],
    ['search', 'refused', '--format', 'nope'],
    ['search', 'a', '--since', 'not-a-time'],
    ['sessions', '--global', '--json'],
    ['sessions', 'terminal'],
    ['sessions', '--help'],
    ['sessions', '--nope'],
    ['sessions', '-n'],
    ['sessions', 'nosuchsource'],
  ].map((args) => [args.join(' '), args] as const))('answer `sivtr %s` as the full bundle does', (_name, args) => {
    const slim = run(BIN, args);
    expect(slim).toEqual(run(join(ROOT, 'dist', 'sivtr.cjs'), args));
  });

  it('are what the launcher runs, and the full bundle runs every other command', () => {
    const pkg = join(tmp.path, 'pkg');
    for (const dir of ['bin', 'dist']) mkdirSync(join(pkg, dir), { recursive: true });
    for (const f of ['bin/sivtr.js', 'bin/package.json', 'dist/sivtr.cjs']) copyFileSync(join(ROOT, f), join(pkg, f));
    if (!existsSync(join(pkg, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    writeFileSync(join(pkg, 'dist', 'sivtr-search.cjs'), 'process.stdout.write("the slim search bundle\\n");\n');
    const launcher = join(pkg, 'bin', 'sivtr.js');
    expect(run(launcher, ['search', 'refused']).stdout).toBe('the slim search bundle\n');
    // No slim bundle for sessions in this copy: the full one answers.
    expect(run(launcher, ['sessions', 'terminal', '--json'])).toEqual(run(join(ROOT, 'dist', 'sivtr.cjs'), ['sessions', 'terminal', '--json']));
  });
});
