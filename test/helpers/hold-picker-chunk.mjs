// Holds the picker's screen chunk (dist/picker.mjs, Ink and React) back until the test says so,
// so that a test can type while the picker runs without Ink, for as long as it needs, instead of
// racing a load that takes a tenth of a second. Loaded into the picker's process with
// NODE_OPTIONS=--import=<this file's URL> and HOLD_PICKER_CHUNK=<a FIFO>: loading the chunk waits
// until the test writes to the FIFO (opening a FIFO for reading blocks until a writer comes).
// Node runs module hooks on a thread of their own, so the rest of the process goes on meanwhile.
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  const fifo = process.env.HOLD_PICKER_CHUNK;
  if (fifo && url.endsWith('/picker.mjs')) await readFile(fifo);
  return nextLoad(url, context);
}
