// A Codex rollout kept as .jsonl.zst is read through a decompressed copy in the temp dir. Ctrl-C
// while the index is built exits at once (what is indexed is kept), so that copy's own clean-up
// never runs: it must still not be left behind in the user's temp dir.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';

const ID = '019c0000-dddd-7bbb-8ccc-0123456789ab';

/** A long rollout (~40 MB of JSONL): reading it keeps the build busy long enough to be interrupted. */
function longRollout(id = ID): string {
  const lines = [JSON.stringify({ timestamp: '2026-02-03T08:00:00.000Z', type: 'session_meta', payload: { id, timestamp: '2026-02-03T08:00:00.000Z', cwd: '/home/ana/big', originator: 'codex-tui', cli_version: '0.140.0', source: 'cli' } })];
  const filler = 'the archive job moves old logs to cold storage and checks each checksum '.repeat(40);
  for (let i = 0; i < 12_000; i++) {
    lines.push(JSON.stringify({ timestamp: '2026-02-03T08:00:01.000Z', type: 'response_item', payload: { type: 'message', role: i % 2 ? 'assistant' : 'user', content: [{ type: i % 2 ? 'output_text' : 'input_text', text: `turn ${i}: ${filler}` }] } }));
  }
  return lines.join('\n') + '\n';
}

/**
 * Whether the index's helper thread holds a decompressed copy: its copies sit in a folder of
 * their own inside the temp dir (the main thread's directly in a sivtr-zst-* folder).
 */
function helperCopyUnder(dir: string): boolean {
  return (readdirSync(dir, { recursive: true }) as string[]).some((name) => name.split(/[\\/]/).length === 3 && name.endsWith('rollout.jsonl'));
}

/**
 * Starts a search that builds the index and sends it Ctrl-C as soon as `ready()` holds: whether
 * it held before the search ended, the exit status and what the search wrote to stderr.
 */
async function interruptSearchWhen(env: NodeJS.ProcessEnv, cwd: string, ready: () => boolean, within: number): Promise<{ interrupted: boolean; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'search', 'checksum'], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let interrupted = false;
  for (let waited = 0; waited < within && child.exitCode === null; waited += 5) {
    if (ready()) {
      interrupted = true;
      child.kill('SIGINT');
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { interrupted, code: await exited, stderr };
}

const zstdInstalled = spawnSync('zstd', ['--version']).status === 0;

describe.skipIf(!zstdInstalled)('Ctrl-C while a .zst rollout is read', () => {
  const tmp = tempDir('sivtr-zst-interrupt-');
  afterAll(() => tmp.cleanup());

  it('leaves no decompressed copy in the temp dir', async () => {
    const home = join(tmp.path, 'home');
    const dayDir = join(home, '.codex', 'sessions', '2026', '02', '03');
    mkdirSync(dayDir, { recursive: true });
    const plain = join(tmp.path, 'rollout.jsonl');
    writeFileSync(plain, longRollout());
    const packed = join(dayDir, `rollout-2026-02-03T08-00-00-${ID}.jsonl.zst`);
    expect(spawnSync('zstd', ['-q', '-1', plain, '-o', packed]).status).toBe(0);
    const userTmp = join(tmp.path, 'user-tmp');
    mkdirSync(userTmp);
    const env = cleanEnv(home, { TMPDIR: userTmp, SIVTR_DATA_DIR: join(tmp.path, 'data') });

    const { interrupted: sawCopy, code, stderr } = await interruptSearchWhen(env, home, () => readdirSync(userTmp).some((name) => name.startsWith('sivtr-zst-')), 30_000);
    expect(sawCopy).toBe(true);
    expect(code).toBe(130);
    expect(stderr).toMatch(/indexing stopped/);
    expect(readdirSync(userTmp)).toEqual([]);
  }, 60_000);

  it('leaves none when the index helper thread was reading one too', async () => {
    const home = join(tmp.path, 'home2');
    const dayDir = join(home, '.codex', 'sessions', '2026', '02', '03');
    mkdirSync(dayDir, { recursive: true });
    const plain = join(tmp.path, 'rollout2.jsonl');
    for (let i = 0; i < 2; i++) {
      const id = `019c0000-dddd-7bbb-8ccc-01234567890${i}`;
      writeFileSync(plain, longRollout(id));
      expect(spawnSync('zstd', ['-q', '-1', '-f', plain, '-o', join(dayDir, `rollout-2026-02-03T08-00-0${i}-${id}.jsonl.zst`)]).status).toBe(0);
    }
    const userTmp = join(tmp.path, 'user-tmp2');
    mkdirSync(userTmp);
    // The helper thread starts at once and reads every agent session it is handed (no taking back).
    const env = cleanEnv(home, { TMPDIR: userTmp, SIVTR_DATA_DIR: join(tmp.path, 'data2'), SIVTR_INDEX_HELPER_AFTER_MS: '0' });

    const { interrupted: sawHelperCopy, code } = await interruptSearchWhen(env, home, () => helperCopyUnder(userTmp), 45_000);
    expect(sawHelperCopy).toBe(true);
    expect(code).toBe(130);
    expect(readdirSync(userTmp)).toEqual([]);
  }, 90_000);
});
