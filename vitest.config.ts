import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * One runtime directory for the whole run (`docs/protocol.md`), new for each run: the runs the tests
 * drive announce themselves there, and never to the cctops the developer has open, nor to another
 * test run on the same machine, nor they to the tests' tables.
 */
const RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'cctop-test-runtime-'));

export default defineConfig({
  // Vite's cache stays out of node_modules: a change there makes npm re-read the installed tree, and
  // `npx cctop` then took seconds after a test run instead of a fraction of one.
  cacheDir: '.cache/vitest',
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real subprocesses and servers; two cores do not want more than two files at once.
    maxWorkers: 2,
    reporters: ['default', './test/skipped-reporter.ts'],
    env: { CCTOP_RUNTIME_DIR: RUNTIME_DIR },
  },
});
