// childPath names a listed entry as join would, so locations (the index's and the listing
// cache's keys) stay what they were when listing used join.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  });
});
