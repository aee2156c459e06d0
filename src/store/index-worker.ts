// Entry of the index's helper thread (bundled on its own as dist/index-worker.cjs; see sync-helper.ts).
import { serveSyncHelper } from './sync-helper.js';

serveSyncHelper();
