// How eagerly V8 optimises while a large index build runs. A build runs a few dozen functions
// (JSON lines, units, gram keys, packing) over hundreds of MB on two threads, and under V8's
// default budget both threads had each of them compiled by TurboFan early, on partial type
// feedback, then again after every deoptimisation: on a machine with two cores the compiler
// threads took about a fifth of the build's CPU from reading (perf, 300 MB cold build: ~0.6 s of
// ~3 s). A budget 18 times the default lets a function run longer in the baseline tiers first,
// so far fewer are compiled, each once, with settled feedback; the truly hot ones still are.
// Measured on the bench corpus (bench/search.mjs), cold build, medians: 300 MB 1.36 -> 1.15 s,
// 1 GB 5.2 -> 3.9 s, CPU a quarter less; budgets from 1.2 M to 4.8 M measured alike. A build of
// terminal records alone (~0.1 s, no helper) gained nothing, and a warm search optimises no
// JavaScript at all, so only the helper's start raises it (docs/architecture.md, "Index").
import { createRequire } from 'node:module';

/** V8's --interrupt-budget for the rest of a process that started an index helper (V8's default: 67,584). */
export const BUILD_INTERRUPT_BUDGET = 1_200_000;

/**
 * Raises V8's tier-up budget for the whole process, every thread. V8 compares a code cache's
 * flags with the process's as they are when the cache is read or made, so this runs in the
 * helper once its own bundle is loaded from its seed, and the process writes no code cache
 * after (see SyncHelper.start). SIVTR_BUILD_TIERING=default keeps V8's default, for comparing.
 */
export function raiseBuildTierUpBudget(env: NodeJS.ProcessEnv): void {
  if (env.SIVTR_BUILD_TIERING === 'default') return;
  try {
    (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(`--interrupt-budget=${BUILD_INTERRUPT_BUDGET}`);
  } catch {
    // a runtime without V8's flags: the build runs as before
  }
}
