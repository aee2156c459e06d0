// An agent whose folder and watched files are all missing is not listed by the index: its plan
// is the fingerprint of those missing paths, exactly what a listing would have given, so the
// next search trusts it just the same; and a listing runs once one of its paths is there.
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allProviders } from '../../src/agents/registry.js';
import type { Provider } from '../../src/agents/types.js';
import { agentSource } from '../../src/memory/agent-source.js';
import type { IndexContext } from '../../src/memory/types.js';
import { PathProbe } from '../../src/session/file-mark.js';
import { tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const noStamps = { paths: [], sizes: [], mtimes: [] };

function context(env: NodeJS.ProcessEnv, probe?: PathProbe): IndexContext {
  return { env, persistent: false, previous: '', mark: () => undefined, ...(probe ? { probe } : {}) };
}

/** A registered provider whose discovery is counted. */
function counted(provider: Provider): { provider: Provider; calls: () => number } {
  let calls = 0;
  const wrapped: Provider = {
    ...provider,
    discover: (opts) => {
      calls++;
      return provider.discover(opts);
    },
  };
  return { provider: wrapped, calls: () => calls };
}

describe('an agent that is not installed', () => {
  it('gets the fingerprint a listing would give, and no listing', async () => {
    const env = { HOME: tmp.path, PATH: process.env.PATH };
    let skipped = 0;
    for (const provider of allProviders()) {
      if (provider.dataLocation?.(env) === undefined) continue;
      const listed = await agentSource(provider).index.plan(context(env));
      const { provider: watched, calls } = counted(provider);
      const source = agentSource(watched);
      const probe = new PathProbe(tmp.path);
      const plan = await source.index.plan(context(env, probe));
      expect(plan.sessions, provider.name).toEqual([]);
      expect(plan.fingerprint, provider.name).toBe(listed.fingerprint);
      expect(calls(), `${provider.name} was listed`).toBe(0);
      expect(source.index.unchangedSince(plan.fingerprint!, env, noStamps, new PathProbe(tmp.path)), provider.name).toBe(true);
      skipped++;
    }
    expect(skipped).toBeGreaterThan(10);
  });

  it('is listed once its folder is there', async () => {
    const env = { HOME: tmp.path, PATH: process.env.PATH };
    let listed = 0;
    for (const provider of allProviders()) {
      const root = provider.dataLocation?.(env);
      // A folder, not a database file (which a folder in its place would fail to open).
      if (root === undefined || !root.startsWith(tmp.path) || /.\.[a-z]+$/.test(basename(root))) continue;
      mkdirSync(root, { recursive: true });
      const { provider: watched, calls } = counted(provider);
      await agentSource(watched).index.plan(context(env, new PathProbe(tmp.path)));
      expect(calls(), provider.name).toBe(1);
      listed++;
    }
    expect(listed).toBeGreaterThan(10);
  });
});
