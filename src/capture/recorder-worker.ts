// Entry of the recorder's worker thread (bundled on its own as dist/recorder-worker.cjs).
import { serveRecorderWorker } from './sink.js';

serveRecorderWorker();
