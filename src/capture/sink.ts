// Where the proxy's copy of the byte stream goes. Preferably a worker thread, so rendering a huge
// output runs beside the passthrough instead of delaying it; else the same recorder inline. Either
// way the recorder is an observer: any error switches recording off and the session carries on.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { applyCaptureRules, compileCaptureRules, type CaptureRulesData } from '../session/capture-rules.js';
import { LogWriter } from '../session/log.js';
import { Recorder } from './recorder.js';

export type SinkStats = { entries: number; recorderErrors: number; writeErrors: number };

export interface RecorderSink {
  /** A copy of what went to the screen. */
  feed(buf: Buffer): void;
  /** The shell is gone: record the partial entry, flush, stop. */
  finish(): Promise<SinkStats>;
}

type Options = { nonce: string; logPath: string; debug?: boolean; rules?: CaptureRulesData };

/** Outstanding bytes at which the PTY pauses until the worker catches up (bounded memory). */
const HIGH_WATER = 16 * 1024 * 1024;
const LOW_WATER = 4 * 1024 * 1024;
const FINISH_TIMEOUT_MS = 5000;
const ACK_EVERY = 256 * 1024;
const BATCH_BYTES = 64 * 1024;
const BATCH_MS = 4;

function makeRecorder(options: Options, stats: SinkStats): Recorder {
  // Said on the user's terminal mid-session, maybe right after a prompt and in raw mode: a line of
  // its own, with carriage returns.
  const writer = new LogWriter(options.logPath, (message) => process.stderr.write(`\r\nsivtr: ${message}\r\n`));
  const rules = options.rules && compileCaptureRules(options.rules);
  return new Recorder({
    nonce: options.nonce,
    write: (recorded) => {
      // `[capture]` rules: an ignored command is never written, masked text never reaches the file.
      const entry = applyCaptureRules(recorded, rules);
      if (!entry) return;
      try {
        writer.append(entry);
        stats.entries++;
      } catch {
        stats.writeErrors++; // disk full, permissions: the session matters more than the record
      }
    },
  });
}

export function inlineSink(options: Options): RecorderSink {
  const stats: SinkStats = { entries: 0, recorderErrors: 0, writeErrors: 0 };
  let recorder: Recorder | undefined = makeRecorder(options, stats);
  const decoder = new StringDecoder('utf8');
  const guard = (work: (r: Recorder) => void): void => {
    if (!recorder) return;
    try {
      work(recorder);
    } catch (error) {
      stats.recorderErrors++;
      recorder = undefined; // fail-open: passthrough carries on
      if (options.debug) process.stderr.write(`\r\nsivtr: recorder disabled: ${(error as Error).stack}\r\n`);
    }
  };
  return {
    feed: (buf) => guard((r) => r.feed(decoder.write(buf))),
    finish: async () => {
      guard((r) => {
        r.feed(decoder.end());
        r.finish();
      });
      return stats;
    },
  };
}

/**
 * The recorder in a worker thread. `pause`/`resume` are called when the worker falls too far
 * behind. Undefined when no worker can start here (then use `inlineSink`).
 */
export function workerSink(options: Options, flow: { pause(): void; resume(): void }): RecorderSink | undefined {
  // The worker is its own small bundle beside the CLI's (scripts/build.mjs): statically linked, so
  // V8 sees the recorder's module-level constants as constants (~25% more throughput than running
  // it from the lazily initialised CLI bundle). From TypeScript sources there is none: go inline.
  const entry = join(dirname(fileURLToPath(import.meta.url)), 'recorder-worker.cjs');
  if (!existsSync(entry)) return undefined;
  let worker: Worker;
  try {
    worker = new Worker(entry, { workerData: { sivtrRecorder: options } });
  } catch {
    return undefined;
  }
  worker.unref();
  let failed = false;
  let outstanding = 0;
  let paused = false;
  let stats: SinkStats = { entries: 0, recorderErrors: 0, writeErrors: 0 };
  let finished: ((s: SinkStats) => void) | undefined;
  const stopWaiting = (): void => {
    if (paused) {
      paused = false;
      flow.resume();
    }
    finished?.(stats);
  };
  worker.on('message', (m: { type: string; bytes?: number; stats?: SinkStats }) => {
    if (m.type === 'ack') {
      outstanding -= m.bytes ?? 0;
      if (paused && outstanding < LOW_WATER) {
        paused = false;
        flow.resume();
      }
    } else if (m.type === 'done' && m.stats) {
      stats = m.stats;
      finished?.(stats);
    }
  });
  worker.on('error', (error) => {
    failed = true;
    stats.recorderErrors++;
    if (options.debug) process.stderr.write(`\r\nsivtr: recorder worker failed: ${error.stack}\r\n`);
    stopWaiting();
  });
  worker.on('exit', () => {
    failed = true;
    stopWaiting();
  });
  // Chunks from the PTY (4 KB reads, one per turn of the event loop under load) are gathered into
  // one buffer of our own, sent when it is full or BATCH_MS after its first byte: one message per
  // 64 KB instead of per read (a postMessage cost 15-25 µs of the main thread's time, profiled).
  // The screen already has the bytes, so the delay costs no echo latency; entries land ≤ BATCH_MS
  // later.
  let batch: Uint8Array<ArrayBuffer> | undefined;
  let batchUsed = 0;
  let batchTimer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = undefined;
    if (!batch || batchUsed === 0 || failed) return;
    worker.postMessage({ type: 'data', buf: batch.subarray(0, batchUsed) }, [batch.buffer]);
    batch = undefined;
    batchUsed = 0;
  };
  return {
    feed: (buf) => {
      if (failed) return;
      if (batch && batchUsed + buf.length > batch.byteLength) flush();
      batch ??= new Uint8Array(Math.max(BATCH_BYTES, buf.length));
      batch.set(buf, batchUsed);
      batchUsed += buf.length;
      outstanding += buf.length;
      if (batchUsed >= BATCH_BYTES) flush();
      else batchTimer ??= setTimeout(flush, BATCH_MS);
      if (!paused && outstanding > HIGH_WATER) {
        paused = true;
        flow.pause();
      }
    },
    finish: () =>
      new Promise<SinkStats>((resolve) => {
        flush();
        if (failed) return resolve(stats);
        const timer = setTimeout(() => resolve(stats), FINISH_TIMEOUT_MS);
        timer.unref();
        finished = (s) => {
          clearTimeout(timer);
          void worker.terminate();
          resolve(s);
        };
        worker.postMessage({ type: 'end' });
      }),
  };
}

/** Worker side (src/capture/recorder-worker.ts): the same inline recorder, fed by messages. */
export function serveRecorderWorker(): void {
  if (isMainThread || !parentPort || !(workerData as { sivtrRecorder?: Options } | undefined)?.sivtrRecorder) return;
  const port = parentPort;
  const options = (workerData as { sivtrRecorder: Options }).sivtrRecorder;
  const sink = inlineSink(options);
  // Acknowledge in batches: a message per keystroke back to the main thread costs echo latency.
  let unacked = 0;
  port.on('message', (m: { type: string; buf?: Uint8Array }) => {
    if (m.type === 'data' && m.buf) {
      sink.feed(Buffer.from(m.buf.buffer, m.buf.byteOffset, m.buf.byteLength));
      unacked += m.buf.byteLength;
      if (unacked >= ACK_EVERY) {
        port.postMessage({ type: 'ack', bytes: unacked });
        unacked = 0;
      }
    } else if (m.type === 'end') {
      void sink.finish().then((stats) => port.postMessage({ type: 'done', stats }));
    }
  });
}
