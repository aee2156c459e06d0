// The loader of every command a slim bundle leaves out (scripts/build.mjs builds dist/sivtr-search.cjs
// and dist/sivtr-sessions.cjs with only their own command's code). A slim bundle meets another
// command only on the slow path, when yargs needs every command's spec to name what is wrong with
// a malformed invocation; nothing was printed or done yet, so the whole invocation is handed to
// the full bundle beside it, which runs it from the start. The slim run never goes on.
import { createRequire } from 'node:module';
import type { CommandModule } from './spec.js';

let handed = false;

export function handOver(): Promise<CommandModule> {
  if (!handed) {
    handed = true;
    createRequire(import.meta.url)('./sivtr.cjs');
  }
  return new Promise<CommandModule>(() => {});
}
