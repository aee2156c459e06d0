// A temporary HOME holding the agent fixtures where each provider looks for them, with the
// fixtures' `/home/ana/<dir>` cwds rewritten to real directories under the temp HOME (`app` is a
// git repository with a worktree `app-wt`; `other` and `legacy` are plain directories).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, ROOT, runCli, tempDir, type CliResult } from '../helpers/cli.js';

export const FIXTURES = join(ROOT, 'fixtures', 'agents');

export type AgentHome = {
  home: string;
  /** Where `/home/ana` in the fixtures now points. */
  work: string;
  env: NodeJS.ProcessEnv;
  run(args: string[], opts?: { cwd?: string; env?: Record<string, string | undefined> }): CliResult;
  cleanup(): void;
};

/** Copies a fixture tree, rewriting cwds; file times follow the newest timestamp inside each file. */
export function copyFixtures(from: string, to: string, work: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    const dst = join(to, entry.name);
    if (entry.isDirectory()) copyFixtures(src, dst, work);
    else if (entry.name.endsWith('.jsonl') || entry.name.endsWith('.json') || entry.name === '.project_root') {
      const text = readFileSync(src, 'utf8').replaceAll('/home/ana', work);
      writeFileSync(dst, text);
      const stamps = [...text.matchAll(/"(?:timestamp|lastUpdated)":"([^"]+)"/g)].map((m) => Date.parse(m[1]!)).filter((n) => !Number.isNaN(n));
      if (stamps.length > 0) {
        const t = new Date(Math.max(...stamps));
        utimesSync(dst, t, t);
      }
    } else {
      cpSync(src, dst);
      // Binary fixtures (a .zst rollout) get the time in their name, as the agent would have left it.
      const named = /(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})/.exec(entry.name);
      if (named) {
        const t = new Date(`${named[1]}T${named[2]}:${named[3]}:${named[4]}Z`);
        utimesSync(dst, t, t);
      }
    }
  }
}

const git = (cwd: string, ...args: string[]): void => {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, stdio: 'ignore' });
};

export function agentHome(providers: string[] = ['claude', 'codex', 'pi']): AgentHome {
  const tmp = tempDir('sivtr-agents-');
  const home = tmp.path;
  const work = join(home, 'work');
  for (const d of ['app/src', 'other', 'legacy', 'elsewhere']) mkdirSync(join(work, d), { recursive: true });
  git(join(work, 'app'), 'init', '-q');
  git(join(work, 'app'), 'commit', '-q', '--allow-empty', '-m', 'init');
  git(join(work, 'app'), 'worktree', 'add', '-q', join(work, 'app-wt'));
  for (const p of providers) {
    if (p === 'claude') copyFixtures(join(FIXTURES, 'claude'), join(home, '.claude'), work);
    if (p === 'codex') copyFixtures(join(FIXTURES, 'codex'), join(home, '.codex'), work);
    if (p === 'pi') copyFixtures(join(FIXTURES, 'pi'), join(home, '.pi', 'agent'), work);
    if (p === 'gemini') copyFixtures(join(FIXTURES, 'gemini'), join(home, '.gemini'), work);
  }
  const env = cleanEnv(home, { SIVTR_DATA_DIR: join(home, 'data') });
  return {
    home,
    work,
    env,
    run: (args, opts = {}) => runCli(args, { env: opts.env ? { ...env, ...dropUndefined(opts.env) } : env, cwd: opts.cwd ?? home }),
    cleanup: tmp.cleanup,
  };
}

function dropUndefined(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
}

/** Sessions as `sessions --json` prints them. */
export type ListedSession = { ref: string; source: string; id: string; cwd: string | null; title: string | null; updated_at: string | null; turns: number | null };

export function listJson(h: AgentHome, args: string[], cwd?: string): ListedSession[] {
  const r = h.run(['sessions', ...args, '--json'], { cwd });
  if (r.code !== 0) throw new Error(`sessions failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ListedSession[];
}

export function mtimeOf(path: string): number {
  return statSync(path).mtimeMs;
}
