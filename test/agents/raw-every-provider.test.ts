// `show --raw` for every provider: each registered provider's fixtures (the ones its own tests
// use: fixtures/agents/, fixtures/real/, test/agents/fixtures/) are laid out under a temporary
// HOME, every transcript is loaded, and every block — and every turn end that names a record —
// must carry a locator that raw.ts opens; one session of each goes overview → turns → show
// …/pN --raw through the CLI. A provider added to the registry without an entry here does not
// compile (the table, in fixture-sets.ts, is keyed by provider name) and fails the first test.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRawRecords } from '../../src/agents/raw.js';
import { allProviders, providerNames, type ProviderName } from '../../src/agents/registry.js';
import type { Block, RawLocator } from '../../src/agents/types.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { FIXTURE_SETS } from './fixture-sets.js';

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
