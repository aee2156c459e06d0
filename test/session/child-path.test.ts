// childPath names a listed entry as join would, so locations (the index's and the listing
// cache's keys) stay what they were when listing used join.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extensionStorages } from '../../src/agents/cline-tasks.js';
import { childPath } from '../../src/files.js';
import { tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('sivtr-child-path-');
});
afterEach(() => tmp.cleanup());

describe('childPath', () => {
  it('gives what join gives for every entry a listing of a joined folder returns', () => {
    const dir = join(tmp.path, 'a', '..', 'projects', '-home-ana-app');
    mkdirSync(dir, { recursive: true });
    for (const name of ['s1.jsonl', '.hidden', 'with space.jsonl', 'ünï.jsonl', 'sub']) writeFileSync(join(dir, name), '');
    const names = readdirSync(dir);
    expect(names).toHaveLength(5);
    for (const name of names) expect(childPath(dir, name)).toBe(join(dir, name));
  });

  it('adds no second separator below the root', () => {
    expect(childPath(sep, 'tmp')).toBe(join(sep, 'tmp'));
    expect(childPath(join(sep, 'a'), 'b', 'c d', 'e.f')).toBe(join(sep, 'a', 'b', 'c d', 'e.f'));
  });

  it('names the editor storages of an extension as join did, from homes and config dirs written untidily', () => {
    const id = 'saoudrizwan.claude-dev';
    for (const env of [{ HOME: '/home/ana/' }, { HOME: '/home//ana', XDG_CONFIG_HOME: '/home/ana/./cfg/' }, { HOME: '/home/ana', XDG_CONFIG_HOME: '~/cfg' }]) {
      const home = env.HOME;
      const config = env.XDG_CONFIG_HOME?.startsWith('~/') ? join(home, env.XDG_CONFIG_HOME.slice(2)) : (env.XDG_CONFIG_HOME ?? join(home, '.config'));
      const editors = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'].map((app) => join(config, app, 'User', 'globalStorage', id));
      const remotes = ['.vscode-server', '.vscode-remote', '.cursor-server', '.windsurf-server'].map((r) => join(home, r, 'data', 'User', 'globalStorage', id));
      if (process.platform === 'linux') expect(extensionStorages(env, id)).toEqual([...editors, ...remotes]);
    }
  });
});
