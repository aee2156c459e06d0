// The corpus both lead tests search: 24 generated agent sessions and one terminal log whose
// every seventh command holds the common words "parser config" beside the test's odd texts.
import { join } from 'node:path';
import { generateCorpus } from '../../bench/agents-corpus.mjs';
import { openIndex, type IndexDb } from '../../src/store/index-db.js';
import { syncIndex } from '../../src/store/sync.js';
import { tempDir } from './cli.js';
import { writeLog, type RawEntry } from './terminal-log.js';

const quiet = { total() {}, step() {}, done() {} };

export interface LeadCorpus {
  tmp: ReturnType<typeof tempDir>;
  env: NodeJS.ProcessEnv;
  index: IndexDb;
}

export async function buildLeadCorpus(prefix: string, oddTexts: readonly string[], records: number): Promise<LeadCorpus> {
  const tmp = tempDir(prefix);
  const home = join(tmp.path, 'home');
  const data = join(tmp.path, 'data');
  generateCorpus(home, { sessions: 24, mb: 3 });
  const start = Date.UTC(2026, 10, 2);
  const odd = (i: number) => oddTexts[i % oddTexts.length];
  const entries: RawEntry[] = Array.from({ length: records }, (_, i) => ({
    prompt: '$ ',
    command: i % 7 === 0 ? `parser config ${odd(i)}` : `make step-${i} ${odd(i)}`,
    output: `${odd(i + 3)} error warning ${i}`,
    cwd: '/work',
    ended_at: new Date(start + i * 60_000).toISOString(),
    exit_code: i % 5 === 0 ? 1 : 0,
  }));
  writeLog(data, '5151-1764400000', entries);
  const env = { HOME: home, SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') };
  const index = openIndex(join(data, 'index.db'), 'test').index;
  await syncIndex(index, env, quiet);
  return { tmp, env, index };
}
