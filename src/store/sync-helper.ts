// A second thread for a large index build. Reading sessions (parsing JSON, building units, listing
// gram keys, compressing) is nearly all of a cold build's work, and writing SQLite a small part;
// on a machine with two cores the helper reads agent sessions (never a terminal log: sync.ts keeps
// those on the main thread) while the main thread reads others and
// writes every one of them, in the order the sources listed them (so row ids, and answers, are
// the same as a build without it). The helper is a worker thread started from its own bundle
// (dist/index-worker.cjs, beside the CLI's); it plans the same sources itself, from the marks
// the main thread sends, and gives back each session it is asked for as the main thread would
// have made it, packed and ready to be written. Anything it cannot do — a session it does not
// list, an error, the thread gone — the main thread does itself.
// The thread can be started before the main thread has planned (a cold build starts it at once,
// so its start-up overlaps the listing) and is told what to plan once that is known. Both threads
// take sessions from the front of one queue: each session handed to the helper has a claim in
// memory both threads share, and whichever thread claims it first reads it — the main thread takes
// back a session the helper has not started when it needs that one next or has nothing else to
// do, so neither thread waits while the other holds work.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { copyFolderForThread, keepCopiesIn } from '../agents/zstd.js';
import { findSource } from '../memory/sources.js';
import type { SessionChange, SessionMark } from '../memory/types.js';
import { useCaptureRules, type CaptureRulesData } from '../session/capture-rules.js';
import { unitDoc, type UnitDoc } from './docs.js';
import { bytesRead, packUnits, type PackedChunk } from './index-db.js';
import { packRecords } from './record-pack.js';
import { raiseBuildTierUpBudget } from './build-tiering.js';
import { storesRecords } from './record-chunks.js';

/** What the helper needs to plan a source as the main thread did. */
export type HelperSource = { name: string; previous: string; marks: [string, SessionMark][] };

/** What the helper is told once the main thread has planned. */
export type HelperPlan = { persistent: boolean; rules?: CaptureRulesData; sources: HelperSource[] };

/** `copies`: where the helper decompresses .zst transcripts (see copyFolderForThread). */
type HelperStart = { env: NodeJS.ProcessEnv; claims: SharedArrayBuffer; copies: string };

type Job = { seq: number; source: string; id: string };
type Request = ({ type: 'plan' } & HelperPlan) | ({ type: 'read' } & Job);

/** A session as the helper read it: `docs` and `packed` (every unit, from the first) when it was read. */
export type HelperResult = { change: SessionChange; docs?: UnitDoc[]; packed?: PackedChunk[] };

type Reply = { type: 'ready' } | { type: 'done'; seq: number; result: HelperResult } | { type: 'missing'; seq: number };

/**
 * Sessions handed to the helper at most: enough that it reads on while the main thread writes a
 * batch (a few hundred ms), and the main thread takes back what the helper has not started.
 */
const IN_FLIGHT = 48;

/**
 * Claims, one per job at its number modulo CLAIMS: the job's number while it is open, its
 * negation once the helper took it, 0 once the main thread took it back. A job taken back may
 * still wait in the helper's queue when its place is given to a later job: the number tells them
 * apart.
 */
const CLAIMS = 1024;

const WORKER_KEY = 'sivtrIndexHelper';

// Loaded when a helper starts or serves, not with this module: every warm search imports sync.ts,
// and node:worker_threads cost it ~2 ms for a thread it never starts.
const workerThreads = (): typeof import('node:worker_threads') => createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');

/** The main thread's side of the helper. */
export class SyncHelper {
  private ready = false;
  private dead = false;
  private seq = 0;
  private planned = false;
  private readonly jobs = new Map<number, (result: HelperResult | undefined) => void>();
  private wake: (() => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly claims: Int32Array,
  ) {
    worker.on('message', (m: Reply) => {
      if (m.type === 'ready') this.ready = true;
      else this.settle(m.seq, m.type === 'done' ? m.result : undefined);
      this.poke();
    });
    worker.on('error', () => this.fail());
    worker.on('exit', () => this.fail());
  }

  /**
   * A started helper, or undefined where none can run (from the TypeScript sources there is no
   * bundle). It loads its code and waits for `plan`.
   */
  static start(env: NodeJS.ProcessEnv): SyncHelper | undefined {
    const dist = dirname(fileURLToPath(import.meta.url));
    const entry = join(dist, 'index-worker.cjs');
    if (!existsSync(entry)) return undefined;
    // Started through bin/seeded-worker.js, the bundle runs from the code cache the build seeded
    // for it instead of being parsed whole at every cold build (that file says what it saves).
    const seeded = join(dist, '..', 'bin', 'seeded-worker.js');
    const keeps = (globalThis as { __sivtrKeepsBytecode?: boolean }).__sivtrKeepsBytecode === true;
    const [file, argv] = existsSync(seeded) ? [seeded, [entry, keeps ? 'keep' : 'plain']] : [entry, []];
    let copies: ReturnType<typeof copyFolderForThread> | undefined;
    try {
      copies = copyFolderForThread();
      const claims = new SharedArrayBuffer(CLAIMS * 4);
      const workerData: Record<string, HelperStart> = { [WORKER_KEY]: { env, claims, copies: copies.dir } };
      const worker = new (workerThreads().Worker)(file, { argv, workerData, env, stdout: false, stderr: false });
      worker.unref();
      worker.once('exit', copies.release);
      // The helper raises V8's tier-up budget for the whole process (build-tiering.ts), and a code
      // cache made under other flags is refused by every later start: this run writes none.
      (globalThis as { __sivtrAtypicalRun?: () => void }).__sivtrAtypicalRun?.();
      return new SyncHelper(worker, new Int32Array(claims));
    } catch {
      copies?.release();
      return undefined;
    }
  }

  /** Tells the helper what to plan (once). */
  plan(plan: HelperPlan): void {
    if (this.planned || this.dead) return;
    this.planned = true;
    this.worker.postMessage({ type: 'plan', ...plan } satisfies Request);
  }

  /** True when the helper has planned its sources and has room for another session. */
  get hasRoom(): boolean {
    return this.ready && !this.dead && this.jobs.size < IN_FLIGHT;
  }


  get working(): boolean {
    return !this.dead && this.jobs.size > 0;
  }

  /** Sessions given to the helper and not yet given back. */
  get outstanding(): number {
    return this.dead ? 0 : this.jobs.size;
  }

  /** The helper's reading of one session (`seq` names it for `takeBack`); undefined means: read it yourself. */
  read(source: string, id: string): { seq: number; result: Promise<HelperResult | undefined> } {
    const seq = ++this.seq;
    if (this.dead) return { seq, result: Promise.resolve(undefined) };
    // An unref'd thread does not keep the process alive: while the main thread waits for it, it must.
    if (this.jobs.size === 0) this.worker.ref();
    Atomics.store(this.claims, seq % CLAIMS, seq);
    const result = new Promise<HelperResult | undefined>((done) => {
      this.jobs.set(seq, done);
      this.worker.postMessage({ type: 'read', seq, source, id } satisfies Request);
    });
    return { seq, result };
  }

  /**
   * Takes a session back from the helper if it has not started reading it: true means its
   * reading resolved to undefined (read it yourself) and the helper will pass it by.
   */
  takeBack(seq: number): boolean {
    if (!this.jobs.has(seq)) return false;
    if (Atomics.compareExchange(this.claims, seq % CLAIMS, seq, 0) !== seq) return false;
    this.settle(seq, undefined);
    return true;
  }

  /** Resolves once the helper has planned its sources and can take sessions, or is gone. */
  async started(): Promise<void> {
    if (this.ready || this.dead) return;
    this.worker.ref(); // as in read(): the process must stay up while the main thread waits for it
    try {
      while (!this.ready && !this.dead) await this.nextEvent();
    } finally {
      if (this.jobs.size === 0 && !this.dead) this.worker.unref();
    }
  }

  /** Lets the helper's messages in (the main thread's reading may not otherwise return to the event loop). */
  heed(): Promise<void> {
    return new Promise((done) => setImmediate(done));
  }

  /** Resolves at the helper's next message (or its end). */
  nextEvent(): Promise<void> {
    if (this.dead) return Promise.resolve();
    return new Promise((done) => (this.wake = done));
  }

  stop(): void {
    this.dead = true;
    void this.worker.terminate();
    this.settleAll();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private settle(seq: number, result: HelperResult | undefined): void {
    const done = this.jobs.get(seq);
    this.jobs.delete(seq);
    if (this.jobs.size === 0 && !this.dead) this.worker.unref();
    done?.(result);
  }

  private settleAll(): void {
    for (const seq of [...this.jobs.keys()]) this.settle(seq, undefined);
    this.poke();
  }

  private fail(): void {
    this.dead = true;
    this.settleAll();
  }
}

/** The helper's side: wait to be told what to plan, then read each session asked for that it claims first, planning its source the first time. */
export function serveSyncHelper(): void {
  const { isMainThread, parentPort, workerData } = workerThreads();
  const start = (workerData as Record<string, HelperStart> | undefined)?.[WORKER_KEY];
  if (isMainThread || !parentPort || !start) return;
  const port = parentPort;
  const claims = new Int32Array(start.claims);
  const env = start.env;
  keepCopiesIn(start.copies);
  // SIVTR_INDEX_HELPER_FAULT=exit-after-N: the thread dies right after its Nth answer, so tests
  // prove the main thread reads what the helper was given and never gave back. (Dying when the
  // job after the Nth arrived lost the Nth answer whenever that job came while it was read.)
  const fault = /^exit-after-(\d+)$/.exec(env.SIVTR_INDEX_HELPER_FAULT ?? '');
  const lastAnswer = fault ? Number(fault[1]) : Infinity;
  let answered = 0;
  const answer = (reply: Reply): void => {
    if (answered >= lastAnswer) return;
    port.postMessage(reply);
    if (++answered >= lastAnswer) process.exit(1);
  };
  // One session at a time, in the order they were handed over: a session is claimed only when
  // its reading starts, so the main thread can take back every one still waiting.
  const waiting: Job[] = [];
  let plan: HelperPlan | undefined;
  /** Each source's sessions, planned when the first of them is asked for (the main thread may read the rest of a short build alone). */
  const planned = new Map<string, Map<string, () => Promise<SessionChange>> | undefined>();
  let busy = false;
  const work = async (): Promise<void> => {
    if (busy || !plan) return;
    busy = true;
    try {
      for (let job = waiting.shift(); job !== undefined && answered < lastAnswer; job = waiting.shift()) {
        if (Atomics.compareExchange(claims, job.seq % CLAIMS, job.seq, -job.seq) !== job.seq) continue; // taken back
        const seq = job.seq;
        if (!planned.has(job.source)) planned.set(job.source, await planSource(env, plan, job.source));
        const result = await readOne(plan, planned.get(job.source), job).catch(() => undefined);
        answer(result ? { type: 'done', seq, result } : { type: 'missing', seq });
      }
    } finally {
      busy = false;
    }
  };
  port.on('message', (request: Request) => {
    if (request.type === 'read') {
      waiting.push(request);
      void work();
    } else if (!plan) {
      plan = request;
      if (plan.rules) useCaptureRules(plan.rules);
      // Loaded from its seed by now, so the seed was checked under the flags it was made with.
      raiseBuildTierUpBudget(env);
      port.postMessage({ type: 'ready' } satisfies Reply);
      void work();
    }
  });
}

/** One source planned as the main thread planned it (from its marks); undefined when it cannot be. */
async function planSource(env: NodeJS.ProcessEnv, init: HelperPlan, name: string): Promise<Map<string, () => Promise<SessionChange>> | undefined> {
  const given = init.sources.find((s) => s.name === name);
  const source = findSource(name);
  if (!given || !source) return undefined;
  const byKey = new Map(given.marks);
  // The main thread listed this source already and said what listing it warned about.
  const write = process.stderr.write;
  process.stderr.write = () => true;
  try {
    const plan = await source.index.plan({ env, persistent: init.persistent, previous: given.previous, mark: (key) => byKey.get(key) });
    return new Map(plan.sessions.map((s) => [s.id, s.update]));
  } catch {
    return undefined; // not listed here: the main thread reads this source's sessions itself
  } finally {
    process.stderr.write = write;
  }
}

async function readOne(init: HelperPlan, sessions: Map<string, () => Promise<SessionChange>> | undefined, job: Job): Promise<HelperResult | undefined> {
  const update = sessions?.get(job.id);
  if (!update) return undefined;
  let change: SessionChange;
  try {
    change = await update();
  } catch (error) {
    change = { kind: 'failed', why: `${job.id} (${(error as { code?: string }).code ?? (error as Error).message})` };
  }
  if (change.kind !== 'read') return { change };
  const storage = { persistent: init.persistent, sourceBytes: bytesRead(change) };
  if (storesRecords(job.source)) return { change: { ...change, units: [] }, docs: [], packed: packRecords(change.units, change.fallbackAt, storage) };
  const docs = change.units.map((u) => unitDoc(u, change.fallbackAt));
  const packed = packUnits(docs, storage);
  // Units do not cross threads (their getters would not), and the chunks hold the part texts:
  // the docs cross without them (the main thread gives the helper only sessions it writes whole).
  for (const d of docs) {
    d.parts = [];
    d.text = undefined;
    d.textBytes = undefined;
  }
  return { change: { ...change, units: [] }, docs, packed };
}
