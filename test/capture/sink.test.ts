// docs/capture.md, edge cases: a recorder that throws on odd input turns recording off and counts the error;
// the caller (the passthrough loop) never sees the exception.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Recorder } from '../../src/capture/recorder.js';
import { inlineSink } from '../../src/capture/sink.js';
import { tempDir } from '../helpers/cli.js';
import { NONCE } from './harness.js';

const m = (body: string) => Buffer.from(`\x1b]${body}\x07`);

describe('recorder fail-open', () => {
  afterEach(() => vi.restoreAllMocks());

  it('records normally, then a throwing recorder is switched off without throwing', async () => {
    const tmp = tempDir('sivtr-sink-');
    try {
      const logPath = join(tmp.path, 'terminals', 't.jsonl');
      const sink = inlineSink({ nonce: NONCE, logPath });
      sink.feed(Buffer.concat([m(`133;C;sivtr=${NONCE}`), Buffer.from('ok\r\n'), m(`633;E;echo\\x20ok;${NONCE}`), m(`133;D;0;sivtr=${NONCE}`)]));
      expect(readFileSync(logPath, 'utf8')).toContain('"output":"ok"');
      const feed = vi.spyOn(Recorder.prototype, 'feed').mockImplementation(() => {
        throw new Error('odd input');
      });
      expect(() => sink.feed(Buffer.from('\xff odd'))).not.toThrow();
      expect(() => sink.feed(Buffer.from('more'))).not.toThrow();
      expect(feed).toHaveBeenCalledTimes(1); // off after the first error
      const stats = await sink.finish();
      expect(stats).toMatchObject({ entries: 1, recorderErrors: 1 });
      expect(readFileSync(logPath, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      tmp.cleanup();
    }
  });

  it('counts a log that cannot be written and keeps going', async () => {
    const tmp = tempDir('sivtr-sink-ro-');
    try {
      const logPath = join(tmp.path, 'file-not-dir', 't.jsonl');
      (await import('node:fs')).writeFileSync(join(tmp.path, 'file-not-dir'), 'x');
      const sink = inlineSink({ nonce: NONCE, logPath });
      const entry = Buffer.concat([m(`133;C;sivtr=${NONCE}`), Buffer.from('x\r\n'), m(`133;D;0;sivtr=${NONCE}`)]);
      sink.feed(entry);
      sink.feed(entry);
      expect(await sink.finish()).toMatchObject({ entries: 0, writeErrors: 2, recorderErrors: 0 });
      expect(existsSync(logPath)).toBe(false);
    } finally {
      tmp.cleanup();
    }
  });
});
