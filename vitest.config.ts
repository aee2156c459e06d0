import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against a hang, not a time limit: every wait on a shell or a screen has its own
    // deadline that says what it waited for, and a test that spawns the CLI dozens of times in a
    // row (search, show, index builds) ran 30-40 s on the loaded 2-core machine. Vitest fails a
    // synchronous test only after it has returned, so there 30 s was a timed assertion.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // Real shells under node-pty and spawned CLIs: keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
