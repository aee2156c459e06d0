// The token rules every provider shares (src/agents/usage.ts), then the same rules seen through
// the providers whose own code used to keep a negative count: genuine transcripts with one count
// turned negative.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { findProvider, type ProviderName } from '../../src/agents/registry.js';
import type { TokenUsage } from '../../src/agents/types.js';
import { runningTotal, sumUsage, tokenCount, tokenUsage } from '../../src/agents/usage.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { real } from './fixture-sets.js';

describe('tokenCount', () => {
  it('takes a finite number that is not negative, zero included', () => {
    expect([0, 1, 120, 1.5].map(tokenCount)).toEqual([0, 1, 120, 1.5]);
  });
  it('drops what is not a count', () => {
    for (const v of [-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '120', null, undefined, true, {}, [3]]) expect(tokenCount(v), String(v)).toBeUndefined();
  });
});

describe('tokenUsage', () => {
  it('keeps each recorded count apart, a recorded zero as zero', () => {
    expect(tokenUsage({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0, reasoning: 0 })).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
  });
  it('leaves a count that was not recorded missing, not 0', () => {
    const u = tokenUsage({ input: 120, output: undefined });
    expect(u).toEqual({ input: 120 });
    expect(u).not.toHaveProperty('output');
  });
  it('is undefined when the record holds no count at all', () => {
    expect(tokenUsage({})).toBeUndefined();
    expect(tokenUsage({ input: 'n/a', output: -3, cacheRead: null })).toBeUndefined();
  });
  it('drops non-numbers and negatives count by count, keeping the others', () => {
    expect(tokenUsage({ input: -5, output: 25, cacheRead: '7', cacheWrite: 3 })).toEqual({ output: 25, cacheWrite: 3 });
  });
  it('takes the cache reads a whole-prompt input holds out of it', () => {
    expect(tokenUsage({ input: 1000, cacheRead: 800, output: 10 }, { inputHolds: ['cacheRead'] })).toEqual({ input: 200, cacheRead: 800, output: 10 });
  });
  it('takes the cache reads and writes out when the input holds both', () => {
    expect(tokenUsage({ input: 1000, cacheRead: 300, cacheWrite: 100 }, { inputHolds: ['cacheRead', 'cacheWrite'] })).toEqual({ input: 600, cacheRead: 300, cacheWrite: 100 });
  });
  it('never leaves a negative fresh input when the cache count exceeds the prompt', () => {
    expect(tokenUsage({ input: 100, cacheRead: 150 }, { inputHolds: ['cacheRead'] })).toEqual({ input: 0, cacheRead: 150 });
  });
  it('keeps the input whole when the held count was not recorded (or is not a count)', () => {
    expect(tokenUsage({ input: 1000 }, { inputHolds: ['cacheRead'] })).toEqual({ input: 1000 });
    expect(tokenUsage({ input: 1000, cacheRead: -1 }, { inputHolds: ['cacheRead'] })).toEqual({ input: 1000 });
  });
  it('does not invent an input from the cache counts alone', () => {
    expect(tokenUsage({ cacheRead: 800 }, { inputHolds: ['cacheRead'] })).toEqual({ cacheRead: 800 });
  });
  it('adds prompt tokens counted apart to the fresh input, only to an input that was recorded', () => {
    expect(tokenUsage({ input: 1000, cacheRead: 400 }, { inputHolds: ['cacheRead'], promptApart: 50 })).toEqual({ input: 650, cacheRead: 400 });
    expect(tokenUsage({ output: 5 }, { promptApart: 50 })).toEqual({ output: 5 });
    expect(tokenUsage({ input: 10 }, { promptApart: -50 })).toEqual({ input: 10 });
  });
  it('puts the reasoning into an output that leaves it out, and keeps it apart too', () => {
    expect(tokenUsage({ output: 25, reasoning: 40 }, { outputLacksReasoning: true })).toEqual({ output: 65, reasoning: 40 });
    // thoughts alone are output as well; neither part recorded is no output
    expect(tokenUsage({ reasoning: 40 }, { outputLacksReasoning: true })).toEqual({ output: 40, reasoning: 40 });
    expect(tokenUsage({ input: 1 }, { outputLacksReasoning: true })).toEqual({ input: 1 });
  });
  it('leaves an output that already holds the reasoning as it is', () => {
    expect(tokenUsage({ output: 65, reasoning: 40 })).toEqual({ output: 65, reasoning: 40 });
  });
});

describe('sumUsage', () => {
  it('adds count by count; a count stays missing only when every usage lacks it', () => {
    expect(sumUsage({ input: 1, output: 2 }, { input: 10, cacheRead: 5 })).toEqual({ input: 11, output: 2, cacheRead: 5 });
    expect(sumUsage({ input: 1 }, { input: 2 })).not.toHaveProperty('output');
  });
  it('counts a zero as a figure', () => {
    expect(sumUsage({ input: 0 }, { output: 0 })).toEqual({ input: 0, output: 0 });
  });
  it('skips usages that are not there; none at all is undefined', () => {
    expect(sumUsage(undefined, { output: 3 }, undefined)).toEqual({ output: 3 });
    expect(sumUsage()).toBeUndefined();
    expect(sumUsage(undefined, undefined)).toBeUndefined();
  });
  it('leaves the usages it adds unchanged', () => {
    const a: TokenUsage = { input: 1 };
    const b: TokenUsage = { input: 2, reasoning: 4 };
    const sum = sumUsage(a, b);
    expect(sum).toEqual({ input: 3, reasoning: 4 });
    expect(a).toEqual({ input: 1 });
    expect(b).toEqual({ input: 2, reasoning: 4 });
  });
});

describe('runningTotal', () => {
  it('an all-zero running total is no figure', () => {
    expect(runningTotal({ input: 0, output: 0, cacheRead: 0 })).toBeUndefined();
    expect(runningTotal({})).toBeUndefined();
    expect(runningTotal(undefined)).toBeUndefined();
  });
  it('a total with any count above zero is kept whole, its zeros included', () => {
    expect(runningTotal({ input: 240, output: 50, cacheRead: 0 })).toEqual({ input: 240, output: 50, cacheRead: 0 });
  });
});

/**
 * Rewrites the records of a copied fixture home — every JSON/JSONL file and every `message.data`
 * of an OpenCode database — and says how many it changed.
 */
function rewriteRecords(dir: string, rewrite: (text: string) => string): number {
  let changed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (entry.name.endsWith('.db')) {
      const db = new Database(path);
      try {
        for (const row of db.prepare('SELECT id, data FROM message').all() as { id: string; data: string }[]) {
          const data = rewrite(row.data);
          if (data !== row.data) {
            db.prepare('UPDATE message SET data = ? WHERE id = ?').run(data, row.id);
            changed++;
          }
        }
      } finally {
        db.close();
      }
    } else if (/\.jsonl?$/.test(entry.name)) {
      const text = readFileSync(path, 'utf8');
      const out = rewrite(text);
      if (out !== text) {
        writeFileSync(path, out);
        changed++;
      }
    }
  }
  return changed;
}

/** `"key": from` becomes `"key": to` wherever it is written. */
const rewriteCounts = (dir: string, key: string, from: number, to: number): number =>
  rewriteRecords(dir, (text) => text.replace(new RegExp(`("${key}"\\s*:\\s*)${from}(?![0-9.])`, 'g'), `$1${to}`));

// The mock model of fixtures/real answers every request with 120 prompt and 25 completion tokens.
// These providers kept a negative count where the others dropped it; a negative count summed
// into a turn or a session would take tokens off it. `lost`: the count that must go missing.
const NEGATIVE: { provider: ProviderName; set: string; key: string; from: number; lost: keyof TokenUsage }[] = [
  { provider: 'claude', set: 'claude-2.1.332', key: 'output_tokens', from: 25, lost: 'output' },
  { provider: 'codex', set: 'codex-0.171.0', key: 'output_tokens', from: 25, lost: 'output' },
  { provider: 'pi', set: 'pi-0.73.1', key: 'output', from: 25, lost: 'output' },
  { provider: 'gemini', set: 'gemini-0.61.0', key: 'input', from: 120, lost: 'input' },
  { provider: 'opencode', set: 'opencode-1.18.33', key: 'output', from: 25, lost: 'output' },
  { provider: 'copilot', set: 'copilot-1.0.102', key: 'outputTokens', from: 25, lost: 'output' },
  { provider: 'qwen', set: 'qwen-0.24.4', key: 'promptTokenCount', from: 120, lost: 'input' },
  { provider: 'continue', set: 'continue-1.5.47', key: 'completion_tokens', from: 25, lost: 'output' },
];

describe('a negative count in a genuine transcript is dropped, the other counts kept', () => {
  for (const c of NEGATIVE) {
    it(`${c.provider}: ${c.key} -${c.from}`, async () => {
      const tmp = tempDir(`sivtr-usage-${c.provider}-`);
      try {
        real(c.set)(tmp.path, tmp.path);
        expect(rewriteCounts(tmp.path, c.key, c.from, -c.from), `${c.key}: ${c.from} found in ${c.set}`).toBeGreaterThan(0);
        const provider = findProvider(c.provider)!;
        const opts = { env: cleanEnv(tmp.path), warn: () => {} };
        const usages: TokenUsage[] = [];
        for await (const summary of provider.discover(opts)) for (const b of (await provider.load(summary, opts)).blocks) if (b.usage) usages.push(b.usage);
        expect(usages.length, 'blocks still carry usage').toBeGreaterThan(0);
        for (const u of usages) {
          for (const v of Object.values(u)) expect(v, `no negative count in ${JSON.stringify(u)}`).toBeGreaterThanOrEqual(0);
        }
        // every count the mock gave apart from the rewritten one is still there
        expect(usages.some((u) => u[c.lost] === undefined), `${c.lost} missing where it was negative`).toBe(true);
        const other = c.lost === 'output' ? 'input' : 'output';
        expect(usages.every((u) => u[other] !== undefined), `${other} kept`).toBe(true);
      } finally {
        tmp.cleanup();
      }
    });
  }
});

describe('Qwen counts the tool-use prompt as input, as Gemini does (both write the Gemini API usageMetadata)', () => {
  it('toolUsePromptTokenCount is added to the fresh input', async () => {
    const tmp = tempDir('sivtr-usage-qwen-tool-');
    try {
      real('qwen-0.24.4')(tmp.path, tmp.path);
      const changed = rewriteRecords(tmp.path, (text) => text.replaceAll('"promptTokenCount":120,', '"promptTokenCount":120,"toolUsePromptTokenCount":30,'));
      expect(changed, 'promptTokenCount 120 in the fixture').toBeGreaterThan(0);
      const qwen = findProvider('qwen')!;
      const opts = { env: cleanEnv(tmp.path), warn: () => {} };
      const inputs: (number | undefined)[] = [];
      for await (const summary of qwen.discover(opts)) for (const b of (await qwen.load(summary, opts)).blocks) if (b.usage) inputs.push(b.usage.input);
      // 120 prompt tokens (none cached) + 30 of the tool-use prompt, on every response the mock answered with 120
      expect(inputs).toContain(150);
      expect(inputs).not.toContain(120);
    } finally {
      tmp.cleanup();
    }
  });
});
