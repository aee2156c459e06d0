// A ref sivtr printed keeps resolving after new sessions appear: JSON and `--format refs` carry
// full ids, and the short ids printed for people keep headroom past any prefix they share.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayIds } from '../../src/memory/display-id.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let data: string;
beforeEach(() => {
  tmp = tempDir();
  data = join(tmp.path, 'data');
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data });
});
afterEach(() => tmp.cleanup());

const record = (output: string) => ({ prompt: '$ ', command: `echo ${output}`, output, ended_at: '2026-11-29T10:00:00Z' });

describe('refs sivtr printed keep resolving', () => {
  it('show --json and search --format refs name the session by its full id', () => {
    // Old-style ids of one reused pid share a long time-based prefix.
    const first = writeLog(data, '4242-1764400000', [record('first')]);
    const shown = JSON.parse(runCli(['show', 'terminal/current/1', '--json'], { env: { ...env, SIVTR_SESSION_LOG: first } }).stdout) as { ref: string; session: string };
    expect(shown).toMatchObject({ ref: 'terminal/4242-1764400000/1', session: '4242-1764400000' });
    const found = runCli(['search', 'terminal', 'first', '--format', 'refs'], { env }).stdout.trim();
    expect(found).toBe('terminal/4242-1764400000/1');
    writeLog(data, '4242-1764480000', [record('second')]);
    for (const ref of [shown.ref, found]) expect(runCli(['show', `${ref}/p3`], { env }).stdout).toBe('first\n');
  });

  it('a printed short id stays unique when a session with the same 8-character prefix appears', () => {
    writeLog(data, '0199b0d4-1111-7c3d-9f00-aabbccddeeff', [record('mine')]);
    writeLog(data, '0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60', [record('other')]);
    const listed = runCli(['sessions', 'terminal'], { env }).stdout;
    const printed = /^(0199b0d4\S*)/m.exec(listed)![1]!;
    expect(printed).toBe('0199b0d4-1');
    writeLog(data, '0199b0d4-2222-7c3d-9f00-000000000000', [record('newer')]);
    const r = runCli(['show', `terminal/${printed}/1/p3`], { env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('mine\n');
  });

  it("search prints each hit's session by the display id it has among every session of its source", () => {
    // A page's display ids come from each shown session's neighbours in SQLite's order (an
    // ASCII id), else from every id of the source: both must print what displayIds gives.
    const ids = ['0199b0d4-1111-7c3d-9f00-aabbccddeeff', '0199b0d4-1122-7c3d-9f00-000000000000', '0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60', '0199b0d5-0000', 'zz-9', 'zzé-1', 'zzé-2'];
    ids.forEach((id, i) => writeLog(data, id, [record(i % 2 === 0 ? `needle even${i}` : `needle odd${i}`)]));
    const expected = displayIds(ids);
    const printed = (word: string): string[] => runCli(['search', 'terminal', word, '--limit', '20'], { env }).stdout.split('\n').filter((l) => l.startsWith('terminal/')).map((l) => l.split(/\s/)[0]!.split('/')[1]!).sort();
    const shown = printed('needle'); // every id read: the page holds non-ASCII ones
    expect(shown).toEqual(ids.map((id) => expected.get(id)!).sort());
    expect(shown).toContain('0199b0d4-1122-7'); // past the prefix it shares with its neighbour
    // One hit: from its neighbours, the later one the longer prefix it shares.
    expect(printed('even0')).toEqual([expected.get(ids[0]!)]);
    expect(printed('odd1')).toEqual([expected.get(ids[1]!)]);
    expect(printed('odd5')).toEqual([expected.get('zzé-1')]);
  });

  it('display ids: 8 characters, or unique plus two more, never ending on a separator', () => {
    const ids = displayIds(['7f3e0c2a-5b1d', '2b8d4f60-0a1b', 'abcdefab12', 'abcdefab34', 'short']);
    expect(ids.get('7f3e0c2a-5b1d')).toBe('7f3e0c2a');
    expect(ids.get('short')).toBe('short');
    expect(ids.get('abcdefab12')).toBe('abcdefab12'); // unique at 9, the whole id
    const uuid7 = displayIds(['019a7e20-5555-7000-8000-000000000000', '019a7e10-3333-7000-8000-000000000000']);
    expect([...uuid7.values()].sort()).toEqual(['019a7e10-3', '019a7e20-5']);
  });
});
