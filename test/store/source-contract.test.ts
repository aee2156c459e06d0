// The index knows sources only through the Source contract: a source it has never heard of,
// given as one object, is listed, read, kept unchanged, updated and dropped without anything
// in store/ knowing its name, and persistent indexes skip a source whose fingerprint held.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexPlan, SessionChange, Source, Unit } from '../../src/memory/types.js';
import { memoryIndex, openIndex, type IndexDb } from '../../src/store/index-db.js';
import { search } from '../../src/store/search.js';
import { syncIndex } from '../../src/store/sync.js';
import { tempDir } from '../helpers/cli.js';

const quiet = { total() {}, step() {}, done() {} };

/** A notebook source: pages of text in memory, each page a session of one turn. */
function notebook(pages: Map<string, string>, version: { n: number }): Source & { plans: number } {
  const unit = (id: string, text: string): Unit => ({ ref: `notebook/${id}/1`, source: 'notebook', session: id, index: 1, title: id, parts: [{ n: 1, kind: 'assistant', text }] });
  const source = {
    name: 'notebook',
    unitKind: 'turn' as const,
    plans: 0,
    list: async () => [],
    open: async () => {
      throw new Error('not used');
    },
    index: {
      unchangedSince: (fingerprint: string) => fingerprint === String(version.n),
      async plan(ctx: Parameters<Source['index']['plan']>[0]): Promise<IndexPlan> {
        source.plans++;
        return {
          fingerprint: String(version.n),
          sessions: [...pages].map(([id, text]) => ({
            id,
            update: async (): Promise<SessionChange> => {
              const head = `${text.length}:${text}`;
              if (ctx.mark(id)?.head === head) return { kind: 'unchanged' };
              return {
                kind: 'read',
                session: { id, title: id, location: `notebook:${id}` },
                units: [unit(id, text)],
                how: 'replace',
                grew: false,
                mark: { key: id, now: { size: -1, mtime: 0, head, tail: '', parsed_bytes: 0, positions: 1 }, since: ctx.mark(id) },
              };
            },
          })),
        };
      },
    },
  };
  return source;
}

const find = (index: IndexDb, query: string): string[] =>
  search(index, { target: 'notebook', query, field: 'content', limit: 10, now: Date.now(), current: [] }).hits.map((h) => h.ref);

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('a source the index has never heard of', () => {
  it('is indexed, updated and dropped through its plan alone', async () => {
    const pages = new Map([['p1', 'the walrus sleeps'], ['p2', 'the okapi eats']]);
    const version = { n: 1 };
    const source = notebook(pages, version);
    const index = memoryIndex('test');
    try {
      let stats = await syncIndex(index, {}, quiet, { sources: [source] });
      expect(stats).toMatchObject({ filesSeen: 2, filesReparsed: 2, unitsWritten: 2 });
      expect(find(index, 'walrus')).toEqual(['notebook/p1/1']);
      pages.set('p2', 'the okapi sleeps too');
      pages.delete('p1');
      stats = await syncIndex(index, {}, quiet, { sources: [source] });
      expect(stats).toMatchObject({ filesSeen: 1, filesReparsed: 1, sessionsRemoved: 1 });
      expect(find(index, 'sleeps')).toEqual(['notebook/p2/1']);
    } finally {
      index.close();
    }
  });

  it('is not asked at all while its fingerprint holds (persistent index)', async () => {
    const pages = new Map([['p1', 'the walrus sleeps']]);
    const version = { n: 1 };
    const source = notebook(pages, version);
    const { index } = openIndex(join(tmp.path, 'index.db'), 'test');
    try {
      await syncIndex(index, {}, quiet, { sources: [source] });
      const again = await syncIndex(index, {}, quiet, { sources: [source] });
      expect(source.plans).toBe(1);
      expect(again).toMatchObject({ filesSeen: 1, filesUnchanged: 1, unitsWritten: 0 });
      version.n = 2;
      pages.set('p1', 'the walrus wakes');
      await syncIndex(index, {}, quiet, { sources: [source] });
      expect(source.plans).toBe(2);
      expect(find(index, 'wakes')).toEqual(['notebook/p1/1']);
    } finally {
      index.close();
    }
  });
});
