import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real subprocesses and servers; two cores do not want more than two files at once.
    maxWorkers: 2,
    reporters: ['default', './test/skipped-reporter.ts'],
  },
});
