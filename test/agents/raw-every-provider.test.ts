// `show --raw` for every provider: each registered provider's fixtures (the ones its own tests
// use: fixtures/agents/, fixtures/real/, test/agents/fixtures/) are laid out under a temporary
// HOME, every transcript is loaded, and every block — and every turn end that names a record —
// must carry a locator that raw.ts opens; one session of each goes overview → turns → show
// …/pN --raw through the CLI. A provider added to the registry without an entry here does not
// compile (the table is keyed by provider name) and fails the first test.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRawRecords } from '../../src/agents/raw.js';
import { allProviders, providerNames, type ProviderName } from '../../src/agents/registry.js';
import type { Block, RawLocator } from '../../src/agents/types.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
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

const REAL = join(ROOT, 'fixtures', 'real');

/** Lays one fixture set out under `home` (with `work`, an existing project folder); returns env additions. */
type Lay = (home: string, work: string) => Record<string, string> | void;

const real = (set: string): Lay => (home) => {
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

const FIXTURE_SETS: Record<ProviderName, Lay[]> = {
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

/** Every record a block's locator names: found, and holding what identifies the block. */
async function expectReadable(where: string, block: Block, raw: RawLocator | undefined): Promise<void> {
  expect(raw, `${where} has a raw locator`).toBeDefined();
  const records = await readRawRecords(raw!);
  expect(records.length, `${where} names at least one record`).toBeGreaterThan(0);
  const text = records.join('\n');
  expect(text.trim(), `${where}: its records hold something`).not.toBe('');
  // The record holds what the user typed (providers may rejoin streamed chunks or render a
  // skill block, so a word of it, not the whole text).
  if (block.kind === 'user') {
    const words = (block.text.match(/[\p{L}\p{N}]{4,}/gu) ?? []).slice(0, 5);
    if (words.length > 0) expect(words.some((w) => text.includes(w)), `${where} record holds one of ${words.join(', ')}`).toBe(true);
  }
  // A call id is written verbatim in the record of its call and of its result.
  if (block.callId) expect(text, `${where} record holds call id ${block.callId}`).toContain(block.callId);
}

/** What a user does with a session, through the CLI: overview, turns, then the raw record of a turn's last part. */
function drillDown(session: string, env: NodeJS.ProcessEnv, cwd: string): void {
  const overview = runCli(['overview', session, '--json'], { env, cwd });
  expect(overview.code, `overview ${session}: ${overview.stderr}`).toBe(0);
  const units = (JSON.parse(overview.stdout) as { units: number }).units;
  const turns = runCli(['turns', session, '--json'], { env, cwd });
  expect(turns.code, `turns ${session}: ${turns.stderr}`).toBe(0);
  const lines = JSON.parse(turns.stdout) as { index: number; partCount: number }[];
  expect(lines).toHaveLength(units);
  const turn = lines.find((l) => l.partCount > 0)!;
  const ref = `${session}/${turn.index}/p${turn.partCount}`;
  const raw = runCli(['show', ref, '--raw', '--json'], { env, cwd });
  expect(raw.code, `show ${ref} --raw: ${raw.stderr}`).toBe(0);
  const shown = JSON.parse(raw.stdout) as { locators: unknown[]; records: string[] };
  expect(shown.locators.length, ref).toBeGreaterThan(0);
  expect(shown.records.join('').trim(), ref).not.toBe('');
}

describe('raw locators of every provider', () => {
  it('every registered provider has fixtures here', () => {
    expect(Object.keys(FIXTURE_SETS).sort()).toEqual(providerNames().sort());
  });

  for (const provider of allProviders()) {
    it(`${provider.name}: every block of every transcript opens its raw record; overview → turns → show …/pN --raw`, async () => {
      const sets = FIXTURE_SETS[provider.name as ProviderName];
      for (const [i, lay] of sets.entries()) {
        const tmp = tempDir(`sivtr-raw-${provider.name}-`);
        try {
          const work = join(tmp.path, 'work');
          mkdirSync(work, { recursive: true });
          const env = cleanEnv(tmp.path, { ...(lay(tmp.path, work) ?? {}) });
          const warnings: string[] = [];
          const opts = { env, warn: (m: string) => warnings.push(m) };
          let transcripts = 0;
          let blocks = 0;
          for await (const summary of provider.discover(opts)) {
            const t = await provider.load(summary, opts);
            if (transcripts === 0 && i === 0 && t.blocks.length > 0) drillDown(`${provider.name}/${summary.id}`, env, work);
            transcripts++;
            for (const [n, b] of t.blocks.entries()) {
              const where = `${provider.name} set ${i + 1} ${summary.id} block ${n + 1} (${b.kind})`;
              await expectReadable(where, b, b.raw);
              if (b.ended?.raw) await expectReadable(`${where} turn end`, b, b.ended.raw);
              blocks++;
            }
          }
          expect(transcripts, `${provider.name} set ${i + 1} finds transcripts`).toBeGreaterThan(0);
          expect(blocks, `${provider.name} set ${i + 1} reads blocks`).toBeGreaterThan(0);
        } finally {
          tmp.cleanup();
        }
      }
    });
  }
});
