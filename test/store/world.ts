// A HOME with Claude, Codex and Pi transcripts (copied from fixtures/agents), a terminal log and
// history captures: every source the index reads, in a temp dir.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { writeLog, type RawEntry } from '../helpers/terminal-log.js';

export const TERMINAL_ID = '4242-1764400000';

export const TERMINAL_ENTRIES: RawEntry[] = [
  { prompt: '$ ', command: 'curl localhost:8080/health', output: 'curl: (7) Failed to connect to localhost port 8080: Connection refused', cwd: '/srv/app', ended_at: '2026-11-20T09:00:00Z', duration_ms: 12, exit_code: 7 },
  { prompt: '$ ', command: 'grep -rn 会话 src/', output: 'src/i18n.ts:3: 会话记录 (session log)', cwd: '/srv/app', ended_at: '2026-11-21T09:00:00Z', exit_code: 0 },
  { prompt: '$ ', command: 'git log --oneline -1', output: 'a1b2c3d Merge PR1137: rename to snake_case_helpers', cwd: '/srv/app', ended_at: '2026-11-22T09:00:00Z', exit_code: 0 },
  { prompt: '$ ', command: '', output: '' }, // not a record, but it keeps its position
  { prompt: '$ ', command: 'npm test', output: 'FAIL test/db.test.ts\n  ✕ connects to postgres (ECONNREFUSED)\nTests: 1 failed', cwd: '/srv/app', ended_at: '2026-11-23T09:00:00Z', exit_code: 1 },
  { prompt: '$ ', command: 'echo done', output: 'done', ended_at: '2026-11-24T09:00:00Z', exit_code: 0 },
];

export type World = { root: string; home: string; data: string; env: NodeJS.ProcessEnv; logPath: string; cleanup: () => void };

export function makeWorld(extraEnv: Record<string, string | undefined> = {}): World {
  const tmp = tempDir('sivtr-search-');
  const home = join(tmp.path, 'home');
  const data = join(tmp.path, 'data');
  mkdirSync(home, { recursive: true });
  const fixtures = join(ROOT, 'fixtures', 'agents');
  cpSync(join(fixtures, 'claude', 'projects'), join(home, '.claude', 'projects'), { recursive: true });
  cpSync(join(fixtures, 'codex'), join(home, '.codex'), { recursive: true });
  if (existsSync(join(fixtures, 'pi', 'sessions'))) cpSync(join(fixtures, 'pi', 'sessions'), join(home, '.pi', 'agent', 'sessions'), { recursive: true });
  if (existsSync(join(fixtures, 'gemini'))) cpSync(join(fixtures, 'gemini'), join(home, '.gemini'), { recursive: true });
  if (existsSync(join(fixtures, 'opencode', 'build.mjs'))) {
    const db = join(home, '.local', 'share', 'opencode', 'opencode.db');
    mkdirSync(dirname(db), { recursive: true });
    execFileSync(process.execPath, [join(fixtures, 'opencode', 'build.mjs'), db], { stdio: 'ignore', cwd: ROOT });
  }
  const env = cleanEnv(home, { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config'), ...extraEnv });
  const logPath = writeLog(data, TERMINAL_ID, TERMINAL_ENTRIES);
  runCli(['pipe', '--command', 'docker compose up'], { env, input: 'db-1 | connection refused while starting\napi-1 | retrying\n' });
  runCli(['pipe'], { env, input: 'deploy finished without errors\n' });
  return { root: tmp.path, home, data, env, logPath, cleanup: tmp.cleanup };
}

export type JsonHit = { ref: string; source: string; title: string; snippet: string; at: string | null; session: string; index: number; part: number | null; kind: string | null; status: string; all_terms: boolean };
export type JsonResult = { hits: JsonHit[]; total: number; folded: number };

export function searchJson(env: NodeJS.ProcessEnv, args: string[]): JsonResult {
  const r = runCli(['search', ...args, '--format', 'json'], { env });
  if (r.code !== 0) throw new Error(`search ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as JsonResult;
}

export const refsOf = (r: JsonResult): string[] => r.hits.map((h) => h.ref);
