// The workspace filter (docs/formats.md): a session belongs to the workspace when one of its
// cwds is the current directory or lies in the same git repository. Worktrees of one repository
// share a git common dir, so that is the identity. `.git` files are read directly: one spawn of
// git per session would cost more than the whole listing.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

const commonDirCache = new Map<string, string | null>();

/** The git common dir of the repository containing `path`, or undefined outside a repository. */
export function gitCommonDir(path: string): string | undefined {
  const start = resolve(path);
  const cached = commonDirCache.get(start);
  if (cached !== undefined) return cached ?? undefined;
  const visited: string[] = [];
  let dir = start;
  let found: string | null = null;
  for (;;) {
    const hit = commonDirCache.get(dir);
    if (hit !== undefined) {
      found = hit;
      break;
    }
    visited.push(dir);
    const fromHere = commonDirAt(dir);
    if (fromHere !== undefined) {
      found = fromHere;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const v of visited) commonDirCache.set(v, found);
  return found ?? undefined;
}

function commonDirAt(dir: string): string | undefined {
  const dotGit = join(dir, '.git');
  let st;
  try {
    st = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) return dotGit;
  if (!st.isFile()) return undefined;
  // A worktree or submodule: `.git` is a file "gitdir: <path>"; a worktree's gitdir has a
  // `commondir` file pointing back at the main repository's .git.
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!match) return undefined;
    const gitDir = isAbsolute(match[1]!) ? match[1]! : resolve(dir, match[1]!);
    try {
      const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
      return isAbsolute(common) ? resolve(common) : resolve(gitDir, common);
    } catch {
      return resolve(gitDir);
    }
  } catch {
    return undefined;
  }
}

/**
 * Which sessions a command sees, decided here for every command: the workspace of `cwd` (its
 * directory or git repository), a `subtree` (sessions whose cwd lies in it), or everything.
 */
export type SessionScope = { cwd: string; global?: boolean; subtree?: string };

/** A predicate over a session's cwds for a scope. */
export function scopeMatcher(scope: SessionScope): (cwds: readonly string[] | undefined) => boolean {
  if (scope.global) return () => true;
  if (scope.subtree !== undefined) {
    const root = resolve(scope.subtree);
    const prefix = root.endsWith(sep) ? root : root + sep;
    // an explicit subtree is a claim about where a session ran: one without a cwd is not in it
    return (cwds) => cwds !== undefined && cwds.some((c) => resolve(c) === root || resolve(c).startsWith(prefix));
  }
  return workspaceMatcher(scope.cwd);
}

/** A predicate over a session's cwds; sessions without any cwd are kept (docs/formats.md). */
export function workspaceMatcher(cwd: string): (cwds: readonly string[] | undefined) => boolean {
  const target = resolve(cwd);
  const targetRepo = gitCommonDir(target);
  return (cwds) => {
    if (!cwds || cwds.length === 0) return true;
    for (const c of cwds) {
      if (resolve(c) === target) return true;
      if (targetRepo !== undefined && gitCommonDir(c) === targetRepo) return true;
    }
    return false;
  };
}

export type GitRepository = {
  /** The common git dir: one per repository, shared by its worktrees. */
  commonDir: string;
  /** The main working tree (the folder holding the common `.git`), or the common dir of a bare repository. */
  root: string;
  /** `origin`'s URL as a comparable name (`github.com/owner/repo`), credentials and `.git` removed. */
  origin?: string;
};

const originCache = new Map<string, string | null>();

/** The repository containing `path`, read from its `.git` files (no git process). */
export function gitRepository(path: string): GitRepository | undefined {
  const commonDir = gitCommonDir(path);
  if (commonDir === undefined) return undefined;
  const repo: GitRepository = { commonDir, root: /(^|[\\/])\.git$/.test(commonDir) ? dirname(commonDir) : commonDir };
  let origin = originCache.get(commonDir);
  if (origin === undefined) {
    origin = null;
    try {
      const url = originUrl(readFileSync(join(commonDir, 'config'), 'utf8'));
      if (url !== undefined) origin = normalizeRemote(url) ?? null;
    } catch {
      // no readable config: a repository without an origin
    }
    originCache.set(commonDir, origin);
  }
  if (origin !== null) repo.origin = origin;
  return repo;
}

/** `url` of `[remote "origin"]` in a git config file. */
export function originUrl(config: string): string | undefined {
  let inOrigin = false;
  for (const raw of config.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inOrigin = /^\[\s*remote\s+"origin"\s*\]/.test(line);
      continue;
    }
    if (!inOrigin) continue;
    const m = /^url\s*=\s*(.*?)\s*$/.exec(line);
    if (m) return m[1]!.replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/**
 * A remote URL as one comparable name, whatever its form: `git@github.com:o/r.git`,
 * `ssh://git@github.com:22/o/r`, `https://user:token@github.com/o/r.git` all become
 * `github.com/o/r`. Credentials never survive; local paths become `file:/path`.
 */
export function normalizeRemote(url: string): string | undefined {
  const u = url.trim();
  if (u === '') return undefined;
  const clean = (host: string, path: string): string => `${host.toLowerCase()}/${path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '')}`;
  const file = /^file:\/\/[^/]*(\/.*)$/i.exec(u);
  if (file) return `file:${file[1]!.replace(/\/+$/, '').replace(/\.git$/, '')}`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/:]+|\[[^\]]+\])(?::\d*)?(\/.*)?$/i.exec(u);
  if (scheme) return clean(scheme[2]!, scheme[3] ?? '');
  const scp = /^(?:[^@/]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(u);
  if (scp && !u.startsWith('/') && !u.startsWith('.')) return clean(scp[1]!, scp[2]!);
  return `file:${resolve(u).replace(/\.git$/, '')}`;
}
