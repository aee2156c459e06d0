// Every registered provider's fixtures — the ones its own tests use: fixtures/agents/,
// fixtures/real/, test/agents/fixtures/ — as one table, so the walks over every provider
// (raw locators, token usage) read the same files. Keyed by provider name: a provider added to
// the registry without an entry here does not compile.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderName } from '../../src/agents/registry.js';
import { ROOT } from '../helpers/cli.js';
import { HISTORY } from './fixtures/aider.js';
import { nativeTask, task, xmlTask } from './fixtures/cline.js';
import { build as buildCrush } from './fixtures/crush.js';
import { writeJsonlChat, writeTextChat } from './fixtures/cursor.js';
import { build as buildGoose } from './fixtures/goose.js';
import { session as grokSession } from './fixtures/grok.js';
import { build as buildHermes } from './fixtures/hermes.js';
import { write as writeKimi } from './fixtures/kimi.js';
import { write as writeOpenhands } from './fixtures/openhands.js';
import { build as buildZed } from './fixtures/zed.js';
import { copyFixtures, FIXTURES } from './helpers.js';

export const REAL = join(ROOT, 'fixtures', 'real');

/** Lays one fixture set out under `home` (with `work`, an existing project folder); returns env additions. */
export type Lay = (home: string, work: string) => Record<string, string> | void;

export const real = (set: string): Lay => (home) => {
  cpSync(join(REAL, set, 'home'), home, { recursive: true });
};
const synthetic = (dir: string, under: string): Lay => (home, work) => copyFixtures(join(FIXTURES, dir), join(home, under), work);
const opencodeDb = (db: string): Lay => (home, work) => {
  mkdirSync(join(home, db, '..'), { recursive: true });
  const built = spawnSync(process.execPath, [join(FIXTURES, 'opencode', 'build.mjs'), join(home, db), '--cwd', work], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`opencode fixture builder failed: ${built.stderr}`);
};
const clineTasks = (storage: string): Lay => (home, work) => {
  task(join(home, storage), 'native', nativeTask(work), 1764000000000);
  task(join(home, storage), 'xml', xmlTask(), 1700000000000);
};

export const FIXTURE_SETS: Record<ProviderName, Lay[]> = {
  claude: [synthetic('claude', '.claude'), real('claude-2.1.332'), real('claude-2.1.197')],
  codex: [synthetic('codex', '.codex'), real('codex-0.171.0')],
  pi: [synthetic('pi', join('.pi', 'agent')), real('pi-0.73.1')],
  opencode: [opencodeDb(join('.local', 'share', 'opencode', 'opencode.db')), real('opencode-1.18.33')],
  gemini: [synthetic('gemini', '.gemini'), real('gemini-0.61.0')],
  copilot: [real('copilot-1.0.102')],
  qwen: [real('qwen-0.24.4')],
  cline: [clineTasks(join('.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev'))],
  roo: [clineTasks(join('.config', 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline'))],
  cursor: [(home, work) => {
    writeJsonlChat(home, work);
    writeTextChat(join(home, '.cursor', 'projects'));
  }],
  kilo: [real('kilo-7.7.7'), clineTasks(join('.config', 'Code', 'User', 'globalStorage', 'kilocode.kilo-code'))],
  droid: [real('droid-0.215.0')],
  continue: [real('continue-1.5.47')],
  auggie: [real('auggie-0.36.0')],
  openhands: [(home, work) => writeOpenhands(join(home, '.openhands', 'conversations'), work)],
  zed: [(home, work) => buildZed(join(home, '.local', 'share', 'zed'), work)],
  goose: [(home, work) => {
    buildGoose(join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db'), work).close();
  }],
  hermes: [(home, work) => buildHermes(join(home, '.hermes', 'state.db'), work)],
  crush: [(home, work) => {
    buildCrush(work, 'CI is red');
    mkdirSync(join(home, '.local', 'share', 'crush'), { recursive: true });
    writeFileSync(join(home, '.local', 'share', 'crush', 'projects.json'), JSON.stringify({ projects: [{ path: work, data_dir: '.crush', last_accessed: '2026-11-30T10:00:00Z' }] }));
  }],
  grok: [(home, work) => grokSession(join(home, '.grok'), work, 'g1')],
  aider: [(home, work) => {
    const file = join(work, 'chat.md');
    writeFileSync(file, HISTORY);
    return { AIDER_CHAT_HISTORY_FILE: file };
  }],
  kimi: [(home, work) => writeKimi(join(home, '.kimi'), work, 'File census')],
};
