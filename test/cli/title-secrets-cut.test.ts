// A session's title is its first message cut to a line by the agent reader, before anything is
// printed; a secret cut in half there no longer matches its rule, so its first half used to be
// printed by `sessions` and `search`. Genuine Claude Code transcript, its first message edited.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const TOKEN = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
const ORIGINAL = 'Please run `echo hello` in the shell and then read notes.txt, and tell me what you found.';
const MESSAGE = `Please deploy with the token we generated for the staging cluster ${TOKEN} and report back`;
let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  const name = 'bd43460a-c5c2-4da9-a111-fb773a4f6390.jsonl';
  const text = readFileSync(join(ROOT, 'fixtures/real/claude-2.1.332/home/.claude/projects/-tmp-sivtr-conformance-claude-proj', name), 'utf8');
  expect(text).toContain(ORIGINAL);
  const dir = join(tmp.path, '.claude', 'projects', '-tmp-sivtr-conformance-claude-proj');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text.split(ORIGINAL).join(MESSAGE));
});
afterAll(() => tmp.cleanup());

describe('a secret cut by a session title', () => {
  for (const args of [['sessions', '--global'], ['sessions', '--global', '--json'], ['search', 'staging', '--global']]) {
    it(`sivtr ${args.join(' ')} prints no part of it`, () => {
      const r = runCli(args, { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Please deploy');
      expect(r.stdout).not.toContain(TOKEN.slice(0, 12));
    });
  }
});
