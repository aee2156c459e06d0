// Token usage of every provider's fixtures, pinned: which block of which session carries which
// counts (Block.usage, reasoning included), the agent's session total where it keeps only that
// (Transcript.usage), and what `overview --json` shows for the session and each turn. A
// characterisation test: the figures were taken from the code before the providers shared one
// usage builder (usage.ts), and any change to how a provider reads its tokens shows up here as
// a diff of __snapshots__/token-usage/<provider>.json. The genuine transcripts are
// fixtures/real (written by the real agent CLIs); the provider tests pin the rules with figures
// of their own.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allProviders, type ProviderName } from '../../src/agents/registry.js';
import type { Block, TokenUsage } from '../../src/agents/types.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { FIXTURE_SETS, real, type Lay } from './fixture-sets.js';

/** Genuine sets the raw-locator walk does not need but whose tokens are as real as the others'. */
const MORE_REAL: Partial<Record<ProviderName, Lay[]>> = {
  claude: [real('mcp-claude-2.1.332')],
  codex: [real('codex-0.171.0-edits')],
  copilot: [real('copilot-1.0.102-edits')],
  opencode: [real('opencode-1.18.33-edits')],
};

type Overview = { tokens?: TokenUsage; tokensScope?: string };
type TurnLine = { index: number; tokens?: TokenUsage };
type Pinned = {
  id: string;
  blocks: number;
  /** `<block number> <kind>` → its usage, for the blocks that carry one. */
  usage: Record<string, string>;
  sessionUsage?: string;
  overview?: { tokens?: string; tokensScope?: string; turns: Record<number, string> };
};

/**
 * One line per usage, its counts in a fixed order (the order a provider happened to set its
 * keys in means nothing); a count the provider did not record is left out, so a missing count
 * and a zero stay apart. Anything that is not a number is shown as it is, to be seen in a diff.
 */
const KEYS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;
function line(u: TokenUsage): string {
  const extra = Object.keys(u).filter((k) => !(KEYS as readonly string[]).includes(k));
  return [...KEYS, ...extra.sort()].flatMap((k) => (k in u ? [`${k} ${JSON.stringify((u as Record<string, unknown>)[k])}`] : [])).join(', ');
}

const usageOf = (blocks: Block[]): Record<string, string> =>
  Object.fromEntries(blocks.flatMap((b, i) => (b.usage ? [[`${i + 1} ${b.kind}`, line(b.usage)]] : [])));

/** One fixture set: the sessions that carry tokens, by id, and how many carry none. */
type PinnedSet = { withTokens: Pinned[]; withoutTokens: number };

async function pinSet(provider: ProviderName, lay: Lay): Promise<PinnedSet> {
  const p = allProviders().find((x) => x.name === provider)!;
  const tmp = tempDir(`sivtr-tokens-${provider}-`);
  try {
    const work = join(tmp.path, 'work');
    mkdirSync(work, { recursive: true });
    const env = cleanEnv(tmp.path, { ...(lay(tmp.path, work) ?? {}) });
    const opts = { env, warn: () => {} };
    const out: PinnedSet = { withTokens: [], withoutTokens: 0 };
    for await (const summary of p.discover(opts)) {
      const t = await p.load(summary, opts);
      const pinned: Pinned = { id: summary.id, blocks: t.blocks.length, usage: usageOf(t.blocks) };
      if (t.usage) pinned.sessionUsage = line(t.usage);
      // Only counted: a session without figures has nothing to pin but its absence (and some
      // synthetic ones are named after the temporary folder, which differs on every run).
      if (!t.usage && Object.keys(pinned.usage).length === 0) {
        out.withoutTokens++;
        continue;
      }
      // What a user is shown, through the CLI.
      const ref = `${provider}/${summary.id}`;
      const overview = runCli(['overview', ref, '--json'], { env, cwd: work });
      expect(overview.code, `overview ${ref}: ${overview.stderr}`).toBe(0);
      const turns = runCli(['turns', ref, '--json'], { env, cwd: work });
      expect(turns.code, `turns ${ref}: ${turns.stderr}`).toBe(0);
      const facts = JSON.parse(overview.stdout) as Overview;
      const lines = JSON.parse(turns.stdout) as TurnLine[];
      pinned.overview = { turns: Object.fromEntries(lines.flatMap((l) => (l.tokens ? [[l.index, line(l.tokens)]] : []))) };
      if (facts.tokens) pinned.overview.tokens = line(facts.tokens);
      if (facts.tokensScope) pinned.overview.tokensScope = facts.tokensScope;
      out.withTokens.push(pinned);
    }
    out.withTokens.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out;
  } finally {
    tmp.cleanup();
  }
}

/** Providers whose fixtures record tokens: their pinned figures must not be empty. */
const RECORDS_TOKENS: ProviderName[] = ['claude', 'codex', 'pi', 'opencode', 'gemini', 'copilot', 'qwen', 'kilo', 'continue', 'droid', 'grok', 'kimi'];

describe('token usage of every provider\'s fixtures', () => {
  for (const provider of allProviders().map((p) => p.name as ProviderName)) {
    it(`${provider}: blocks, session total and overview are what they were`, async () => {
      const sets = [...FIXTURE_SETS[provider], ...(MORE_REAL[provider] ?? [])];
      const pinned: PinnedSet[] = [];
      for (const lay of sets) pinned.push(await pinSet(provider, lay));
      const found = pinned.reduce((n, s) => n + s.withTokens.length + s.withoutTokens, 0);
      expect(found, `${provider} finds sessions`).toBeGreaterThan(0);
      if (RECORDS_TOKENS.includes(provider)) expect(pinned.some((s) => s.withTokens.length > 0), `${provider} reads tokens`).toBe(true);
      // one file per provider: a change shows as a diff of that provider's figures alone
      await expect(JSON.stringify(pinned, null, 1) + '\n').toMatchFileSnapshot(`__snapshots__/token-usage/${provider}.json`);
    });
  }
});
