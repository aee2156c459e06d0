// statStamp answers the freshness checks' stat from node's fs binding where that is safe. These
// tests hold it to statSync's answers on every kind of path, in this process and in child
// processes where the binding must not be used (--pending-deprecation, SIVTR_PLAIN_STAT) or
// where permissions apply (EACCES, as root too).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statBackend, statStamp } from '../../src/file-stat.js';
import { ROOT, runCliUnprivileged, tempDir, unprivilegedIsNobody } from '../helpers/cli.js';

type Answer = { kind: string; size: number; mtimeMs: number } | null | { error: string };

const reference = (path: string): Answer => {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return null;
    return { kind: st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other', size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    return { error: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
};

const answer = (path: string): Answer => {
  try {
    const st = statStamp(path);
    return st ? { kind: st.kind, size: st.size, mtimeMs: st.mtimeMs } : null;
  } catch (e) {
    return { error: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
};

/** Object.is on every number: a mtime that differs in its last bit is a changed file to the index. */
function expectSame(a: Answer, b: Answer, path: string): void {
  expect(JSON.stringify(a), path).toBe(JSON.stringify(b));
  if (a && b && 'mtimeMs' in a && 'mtimeMs' in b) expect(Object.is(a.mtimeMs, b.mtimeMs), path).toBe(true);
}

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-file-stat-');
});
afterEach(() => tmp.cleanup());

/** Every kind of path a watched place can hold, made in `dir`. */
function corpus(dir: string): string[] {
  const paths: string[] = [];
  const add = (name: string): string => {
    const p = join(dir, name);
    paths.push(p);
    return p;
  };
  writeFileSync(add('file.jsonl'), '{"a":1}\n');
  writeFileSync(add('empty'), '');
  mkdirSync(add('folder'));
  symlinkSync(join(dir, 'file.jsonl'), add('link-to-file'));
  symlinkSync(join(dir, 'folder'), add('link-to-folder'));
  symlinkSync(join(dir, 'nowhere'), add('dangling'));
  symlinkSync(join(dir, 'loop-b'), add('loop-a'));
  symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
  add('loop-a/inside');
  add('missing');
  add('file.jsonl/under-a-file'); // ENOTDIR
  mkfifo(add('fifo'));
  paths.push('', 'relative-that-is-not-there', '/');
  // Sub-millisecond and pre-1970 mtimes: the double must be node's to the last bit.
  for (let i = 0; i < 400; i++) {
    const p = add(`f${i}.json`);
    writeFileSync(p, 'x'.repeat(i));
    const seconds = i % 3 === 0 ? -86_400 * 365 - i * 0.000_123_457 : 1_700_000_000 + i * 0.000_987_654_3;
    utimesSync(p, seconds, seconds);
  }
  return paths;
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed`);
}

describe('statStamp', () => {
  it('reads the binding on Linux, and answers every kind of path as statSync does', () => {
    if (process.platform === 'linux') expect(statBackend()).toBe('binding');
    for (const path of corpus(tmp.path)) expectSame(answer(path), reference(path), path);
    expect(answer(join(tmp.path, 'missing'))).toBeNull();
    expect(answer(join(tmp.path, 'file.jsonl/under-a-file'))).toEqual({ error: 'ENOTDIR' });
    expect(answer(join(tmp.path, 'loop-a'))).toEqual({ error: 'ELOOP' });
    expect((answer(join(tmp.path, 'fifo')) as { kind: string }).kind).toBe('other');
    expect((answer(join(tmp.path, 'link-to-folder')) as { kind: string }).kind).toBe('folder');
  });

  it('sees a file change size and mtime at once, though it hands back one shared object', () => {
    const p = join(tmp.path, 'grows');
    writeFileSync(p, 'a');
    const first = statStamp(p)!;
    const size = first.size;
    writeFileSync(p, 'abc');
    utimesSync(p, 1_000, 1_000.5);
    const second = statStamp(p)!;
    expect(size).toBe(1);
    expect(second).toEqual({ kind: 'file', size: 3, mtimeMs: 1_000_500 });
  });

  it('refuses a path holding a NUL byte as statSync does, rather than stat what comes before it', () => {
    writeFileSync(join(tmp.path, 'before'), 'x');
    const path = join(tmp.path, 'before') + '\0after';
    expect(() => statSync(path, { throwIfNoEntry: false })).toThrow();
    expect(() => statStamp(path)).toThrow();
  });
});

/** file-stat.ts as plain JavaScript plus a runner that prints its backend and answers, for child processes. */
function childRunner(dir: string): string {
  const source = readFileSync(join(ROOT, 'src', 'file-stat.ts'), 'utf8');
  writeFileSync(join(dir, 'file-stat.mjs'), transformSync(source, { loader: 'ts', format: 'esm' }).code);
  const runner = join(dir, 'runner.mjs');
  writeFileSync(
    runner,
    [
      "import { statSync } from 'node:fs';",
      "import { statBackend, statStamp } from './file-stat.mjs';",
      'const show = (f) => { try { const st = f(); return st ? { kind: st.kind, size: st.size, mtimeMs: st.mtimeMs } : null; } catch (e) { return { error: e.code ?? String(e) }; } };',
      "const ref = (p) => () => { const st = statSync(p, { throwIfNoEntry: false }); return st && { kind: st.isFile() ? 'file' : st.isDirectory() ? 'folder' : 'other', size: st.size, mtimeMs: st.mtimeMs }; };",
      'const paths = process.argv.slice(2);',
      'console.log(JSON.stringify({ backend: statBackend(), answers: paths.map((p) => show(() => statStamp(p))), reference: paths.map((p) => show(ref(p))) }));',
    ].join('\n'),
  );
  for (const f of ['file-stat.mjs', 'runner.mjs']) chmodSync(join(dir, f), 0o644);
  return runner;
}

type ChildOut = { backend: string; answers: Answer[]; reference: Answer[] };

function runChild(runner: string, paths: string[], env: Record<string, string>): { out: ChildOut; stderr: string } {
  const r = spawnSync(process.execPath, [runner, ...paths], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as ChildOut, stderr: r.stderr };
}

describe('statStamp where the binding must not answer', () => {
  const platformOk = process.platform === 'linux';

  it.runIf(platformOk)('keeps statSync under --pending-deprecation, so the user sees no DEP0111 warning', () => {
    const runner = childRunner(tmp.path);
    const data = join(tmp.path, 'data');
    mkdirSync(data);
    const paths = corpus(data);
    const plain = runChild(runner, paths, {});
    expect(plain.out.backend).toBe('binding');
    expect(plain.out.answers).toEqual(plain.out.reference);
    for (const env of [{ NODE_OPTIONS: '--pending-deprecation' }, { NODE_PENDING_DEPRECATION: '1' }] as Record<string, string>[]) {
      const child = runChild(runner, paths, env);
      expect(child.out.backend, JSON.stringify(env)).toBe('statSync');
      expect(child.stderr, JSON.stringify(env)).not.toMatch(/DEP0111|process\.binding/);
      expect(child.out.answers).toEqual(plain.out.answers);
    }
  });

  it.runIf(platformOk)('keeps statSync when SIVTR_PLAIN_STAT=1 asks for it, with the same answers', () => {
    const runner = childRunner(tmp.path);
    const data = join(tmp.path, 'data');
    mkdirSync(data);
    const paths = corpus(data);
    const plain = runChild(runner, paths, { SIVTR_PLAIN_STAT: '1' });
    expect(plain.out.backend).toBe('statSync');
    expect(plain.out.answers).toEqual(runChild(runner, paths, {}).out.answers);
  });

  it.runIf(platformOk)('throws EACCES for a path below a folder it may not search, as statSync does (as root too)', () => {
    const runner = childRunner(tmp.path);
    const locked = join(tmp.path, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'inside.jsonl'), 'x');
    chmodSync(locked, 0o000);
    if (unprivilegedIsNobody()) chmodSync(tmp.path, 0o755);
    try {
      const r = runCliUnprivileged([join(locked, 'inside.jsonl'), join(locked, 'missing')], { env: { PATH: process.env.PATH ?? '' }, cwd: tmp.path, bin: runner });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as ChildOut;
      expect(out.backend).toBe('binding');
      expect(out.answers).toEqual([{ error: 'EACCES' }, { error: 'EACCES' }]);
      expect(out.answers).toEqual(out.reference);
    } finally {
      chmodSync(locked, 0o755);
    }
  });
});
