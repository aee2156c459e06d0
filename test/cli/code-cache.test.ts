// The launcher runs the bundle from a V8 code cache written beside it after a successful run;
// a missing, corrupt or stale cache, or an unwritable install, only means compiling as usual.
// A copy of bin/ and dist/ in a temp dir keeps the repository's own cache out of it.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCliUnprivileged, tempDir, unprivilegedIsNobody } from '../helpers/cli.js';
import { KEY, PtyScreen } from '../helpers/screen.js';
import { writeLog } from '../helpers/terminal-log.js';
import { generateCorpus } from '../../bench/agents-corpus.mjs';

let tmp: { path: string; cleanup: () => void };
let pkg: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  tmp = tempDir('sivtr-code-cache-');
  pkg = join(tmp.path, 'pkg');
  for (const dir of ['bin', 'dist']) mkdirSync(join(pkg, dir), { recursive: true });
  for (const f of ['bin/sivtr.js', 'bin/package.json', 'dist/sivtr.cjs', 'dist/picker.mjs']) copyFileSync(join(ROOT, f), join(pkg, f));
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  const data = join(tmp.path, 'data');
  env = cleanEnv(join(tmp.path, 'home'), { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  mkdirSync(env.HOME!, { recursive: true });
  writeLog(data, 'term-1', [
    { prompt: '$ ', command: 'seq 1 3', output: '1\n2\n3', exit_code: 0 },
    { prompt: '$ ', command: 'seq 1 3 | sed s/2/two/', output: '1\ntwo\n3', exit_code: 0 },
  ]);
});
afterEach(() => {
  const cache = join(pkg, 'dist', '.cache');
  if (existsSync(cache)) chmodSync(cache, 0o755);
  tmp.cleanup();
});

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [join(pkg, 'bin', 'sivtr.js'), ...args], { env, cwd: env.HOME, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const cacheFile = (command: string) => join(pkg, 'dist', '.cache', `${process.version}-${process.arch}-${command}.v8`);
// A cache is compared with Buffer.equals: toEqual walks a Buffer's bytes one by one, seconds for a
// cache of 350 KB, and under load that alone took a test past its timeout.

describe('code cache', () => {
  it('is written after the first successful run and used by the next, importing packages as before', () => {
    const first = run('diff', '1', '2');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('+two');
    expect(existsSync(cacheFile('diff'))).toBe(true);
    const written = readFileSync(cacheFile('diff'));
    // The second run compiles from the cache; its dynamic import of `diff` still resolves.
    const second = run('diff', '1', '2');
    expect(second).toEqual(first);
    expect(readFileSync(cacheFile('diff')).equals(written), 'an accepted cache is not rewritten').toBe(true);
  });

  it('a search that builds the index from nothing leaves the cache to the next search, which runs only the warm path', () => {
    const built = run('search', 'two', '--format', 'json');
    expect(built.code, built.stderr).toBe(0);
    expect(existsSync(cacheFile('search')), 'the build wrote no cache').toBe(false);
    const warm = run('search', 'two', '--format', 'json');
    expect(warm).toEqual(built);
    expect(existsSync(cacheFile('search'))).toBe(true);
    const written = readFileSync(cacheFile('search'));
    expect(run('search', 'two', '--format', 'json')).toEqual(built);
    expect(readFileSync(cacheFile('search')).equals(written), 'an accepted cache is not rewritten').toBe(true);
  });

  it('a warm `sessions --global` writes the cache, the run that kept its listings does not', () => {
    // The first run lists every agent afresh and keeps its listing and table (none are installed
    // here: kept empty); the second answers from what was kept, the path every later run takes.
    const first = run('sessions', '--global');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('terminal');
    expect(existsSync(cacheFile('sessions')), 'the listing run wrote no cache').toBe(false);
    const second = run('sessions', '--global');
    expect(second).toEqual(first);
    expect(existsSync(cacheFile('sessions')), 'the warm run wrote one').toBe(true);
  });

  it('a command without a cache of its own starts from the seed the build made, and still writes its own', () => {
    // scripts/build.mjs seeds each bundle's cache with its outer code: V8 must accept it for the bundle as built.
    const seed = join(pkg, 'dist', '.cache', `${process.version}-${process.arch}-sivtr.seed.v8`);
    mkdirSync(join(pkg, 'dist', '.cache'));
    copyFileSync(join(ROOT, 'dist', '.cache', `${process.version}-${process.arch}-sivtr.seed.v8`), seed);
    // Asked of a plain node, as the launcher runs (V8 rejects a cache made under other flags than its own, as vitest's are).
    const check = `const fs = require('node:fs'); const b = fs.readFileSync(process.argv[2]); const source = b.toString(require('node:buffer').isAscii(b) ? 'latin1' : 'utf8');
      const s = new (require('node:vm').Script)(require('node:module').wrap(source), { cachedData: fs.readFileSync(process.argv[3]) }); process.stdout.write(String(s.cachedDataRejected));`;
    writeFileSync(join(tmp.path, 'check.cjs'), check); // as a file: node -e runs under flags of its own
    expect(spawnSync(process.execPath, [join(tmp.path, 'check.cjs'), join(pkg, 'dist', 'sivtr.cjs'), seed], { env, encoding: 'utf8' }).stdout, 'the seed fits the bundle').toBe('false');
    const built = run('search', 'two', '--format', 'json');
    expect(built.code, built.stderr).toBe(0);
    expect(existsSync(cacheFile('search')), 'a build from nothing still writes no cache').toBe(false);
    const first = run('diff', '1', '2');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('+two');
    expect(existsSync(cacheFile('diff')), 'the seed does not stand in for the command\'s own cache').toBe(true);
    expect(run('diff', '1', '2')).toEqual(first);
    expect(run('search', 'two', '--format', 'json')).toEqual(built);
    expect(existsSync(cacheFile('search'))).toBe(true);
  });

  it('the index helper thread starts from its seed, under either flags the launcher runs with; a corrupt seed still builds the same index', () => {
    for (const f of ['bin/seeded-worker.js', 'dist/index-worker.cjs']) copyFileSync(join(ROOT, f), join(pkg, f));
    mkdirSync(join(pkg, 'dist', '.cache'));
    const seeds = ['seed', 'keep.seed'].map((kind) => join(pkg, 'dist', '.cache', `${process.version}-${process.arch}-index-worker.${kind}.v8`));
    for (const seed of seeds) copyFileSync(join(ROOT, 'dist', '.cache', seed.split('/').pop()!), seed);
    // As the existing seed test asks it: of a plain node, once with the flag a cache-writing launcher sets.
    const check = `const fs = require('node:fs'); if (process.argv[4]) require('node:v8').setFlagsFromString(process.argv[4]); const b = fs.readFileSync(process.argv[2]);
      const s = new (require('node:vm').Script)(require('node:module').wrap(b.toString('latin1')), { cachedData: fs.readFileSync(process.argv[3]) }); process.stdout.write(String(s.cachedDataRejected));`;
    writeFileSync(join(tmp.path, 'check.cjs'), check);
    const fits = (seed: string, flag?: string) => spawnSync(process.execPath, [join(tmp.path, 'check.cjs'), join(pkg, 'dist', 'index-worker.cjs'), seed, ...(flag ? [flag] : [])], { env, encoding: 'utf8' }).stdout;
    expect(fits(seeds[0]!), 'the seed fits the bundle').toBe('false');
    expect(fits(seeds[1]!, '--no-flush-bytecode'), 'the keeping seed fits it under --no-flush-bytecode').toBe('false');
    expect(fits(seeds[0]!, '--no-flush-bytecode'), 'V8 tells the flags apart').toBe('true');
    // Agent sessions for the helper to read: it is started at once and given sessions whatever the load.
    generateCorpus(env.HOME!, { sessions: 6, mb: 1 });
    const build = (extra: Record<string, string> = {}) => {
      for (const f of readdirSync(join(tmp.path, 'data'))) if (f.startsWith('index.db')) rmSync(join(tmp.path, 'data', f));
      const r = spawnSync(process.execPath, [join(pkg, 'bin', 'sivtr.js'), 'search', 'tok-claude-3-1', '--format', 'json'], { env: { ...env, SIVTR_INDEX_HELPER_AFTER_MS: '0', SIVTR_INDEX_STATS: '1', ...extra }, cwd: env.HOME, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      const stats = JSON.parse(/^sivtr-index-stats (.*)$/m.exec(r.stderr)![1]!) as { sessionsHelped: number };
      return { stdout: r.stdout, helped: stats.sessionsHelped, other: r.stderr.replace(/^sivtr-index-stats .*\n/m, '') };
    };
    const alone = build({ SIVTR_INDEX_HELPER_AFTER_MS: 'off' });
    expect(JSON.parse(alone.stdout).total).toBeGreaterThan(0);
    // The first build has no search cache of its own: its launcher keeps bytecode (the keeping seed)…
    const keeping = build();
    expect(existsSync(cacheFile('search')), 'a build writes no cache').toBe(false);
    // …and once a warm search has written one, a later build runs under the default flags (the plain seed).
    expect(run('search', 'anything').code).toBe(0);
    expect(existsSync(cacheFile('search'))).toBe(true);
    const plain = build();
    for (const seed of seeds) writeFileSync(seed, 'not a V8 code cache');
    const corrupt = build();
    rmSync(seeds[0]!);
    const missing = build();
    for (const b of [keeping, plain, corrupt, missing]) {
      expect(b.helped, 'the helper read sessions').toBeGreaterThan(0);
      expect(b.stdout).toBe(alone.stdout);
      expect(b.other).toBe(alone.other);
    }
  });

  it('a run the index helper worked in writes no cache: the helper raised V8\'s tier-up budget, and a cache made under other flags is refused by every later start', () => {
    for (const f of ['bin/seeded-worker.js', 'dist/index-worker.cjs']) copyFileSync(join(ROOT, f), join(pkg, f));
    // The index holds the terminal log (so the next build is not one from nothing), and a warm search wrote its cache.
    expect(run('search', 'two').code).toBe(0);
    expect(run('search', 'two').code).toBe(0);
    expect(existsSync(cacheFile('search'))).toBe(true);
    rmSync(cacheFile('search'));
    // New agent sessions, read by the helper at once: a run light enough to write a cache otherwise.
    generateCorpus(env.HOME!, { sessions: 6, mb: 1 });
    const r = spawnSync(process.execPath, [join(pkg, 'bin', 'sivtr.js'), 'search', 'tok-claude-3-1', '--format', 'json'], { env: { ...env, SIVTR_INDEX_HELPER_AFTER_MS: '0', SIVTR_INDEX_STATS: '1' }, cwd: env.HOME, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const stats = JSON.parse(/^sivtr-index-stats (.*)$/m.exec(r.stderr)![1]!) as { sessionsHelped: number; fromEmpty: boolean };
    expect(stats.fromEmpty).toBe(false);
    expect(stats.sessionsHelped, 'the helper read sessions').toBeGreaterThan(0);
    expect(existsSync(cacheFile('search')), 'the helper\'s run wrote no cache').toBe(false);
    // The next run writes one under the default flags, and the one after accepts it.
    const warm = run('search', 'tok-claude-3-1', '--format', 'json');
    expect(warm.stdout).toBe(r.stdout);
    const written = readFileSync(cacheFile('search'));
    expect(run('search', 'tok-claude-3-1', '--format', 'json')).toEqual(warm);
    expect(readFileSync(cacheFile('search')).equals(written), 'an accepted cache is not rewritten').toBe(true);
  });

  it('a debugging run (SIVTR_DEBUG=1) prints a stack trace that names the src/ files and functions, through the source map, and writes no cache', () => {
    copyFileSync(join(ROOT, 'dist', 'sivtr.cjs.map'), join(pkg, 'dist', 'sivtr.cjs.map'));
    env = { ...env, SIVTR_DEBUG: '1' };
    const r = run('show', 'claude/no-such-session');
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain('SivtrError');
    // The bundle's identifiers are minified: without the map a frame reads `at Xy (…/dist/sivtr.cjs:114:2744)`.
    expect(r.stderr).toMatch(/at \w{4,} \(.*src[\\/]memory[\\/][\w-]+\.ts:\d+:\d+\)/);
    expect(existsSync(cacheFile('show'))).toBe(false);
  });

  it('a corrupt cache is ignored and replaced', () => {
    expect(run('diff', '1', '2').code).toBe(0);
    writeFileSync(cacheFile('diff'), 'not a V8 code cache');
    const r = run('diff', '1', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(cacheFile('diff'), 'utf8')).not.toBe('not a V8 code cache');
  });

  it('a failed run writes nothing, and an unwritable install still runs', () => {
    expect(run('diff', '1', '99').code).not.toBe(0);
    expect(existsSync(cacheFile('diff'))).toBe(false);
    mkdirSync(join(pkg, 'dist', '.cache'));
    chmodSync(join(pkg, 'dist', '.cache'), 0o555);
    // Root ignores permissions: it runs without the capabilities that bypass them (or as nobody,
    // which then needs the copy readable; a TMPDIR nobody may not enter still fails that way).
    if (unprivilegedIsNobody()) spawnSync('chmod', ['-R', 'a+rX', tmp.path]);
    const r = runCliUnprivileged(['diff', '1', '2'], { env, cwd: tmp.path, bin: join(pkg, 'bin', 'sivtr.js') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+two');
    expect(readdirSync(join(pkg, 'dist', '.cache'))).toEqual([]);
  });

  describe('the picker', () => {
    const pick = () => new PtyScreen(process.execPath, [join(pkg, 'bin', 'sivtr.js'), 'pick'], { env: { ...env, SIVTR_TERMINAL_ID: 'term-1' } });

    // Leaving without a choice exits 130, an ordinary end: people who always leave with Esc get a cache too.
    for (const [name, keys] of [
      ['Esc at once', KEY.esc],
      ['Tab, then Esc', KEY.tab],
      ['Ctrl-C', KEY.ctrlC],
    ] as const) {
      it(`left with ${name}: the cache is written, and the next run uses it`, async () => {
        const s = pick();
        await s.untilText('Enter copy');
        if (keys === KEY.tab) await s.type(KEY.tab, '[input]'); // Ink's screen answers Tab: Esc goes to it
        s.write(keys === KEY.tab ? KEY.esc : keys);
        expect(await s.wait()).toBe(130);
        expect(existsSync(cacheFile('pick'))).toBe(true);
        const written = readFileSync(cacheFile('pick'));
        const again = pick();
        await again.untilText('Enter copy');
        again.write(KEY.esc);
        expect(await again.wait()).toBe(130);
        expect(readFileSync(cacheFile('pick')).equals(written), 'an accepted cache is not rewritten').toBe(true);
      });
    }

    it('ended by SIGTERM: nothing is written', async () => {
      const s = pick();
      await s.untilText('Enter copy');
      s.kill('SIGTERM');
      expect(await s.wait()).toBe(143);
      expect(existsSync(join(pkg, 'dist', '.cache'))).toBe(false);
    });
  });
});
