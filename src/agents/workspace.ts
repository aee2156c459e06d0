// The workspace filter (docs/formats.md): a session belongs to the workspace when one of its
// cwds is the current directory or lies in the same git repository. Worktrees of one repository
// share a git common dir, so that is the identity. `.git` files are read directly: one spawn of
// git per session would cost more than the whole listing.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

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
