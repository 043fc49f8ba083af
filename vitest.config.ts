import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * One runtime directory for the whole run (`docs/protocol.md`): the runs the tests drive announce
 * themselves there, and never to the cctops the developer has open, nor they to the tests' tables.
 */
const RUNTIME_DIR = join(tmpdir(), 'cctop-test-runtime');
mkdirSync(RUNTIME_DIR, { recursive: true, mode: 0o700 });

export default defineConfig({
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
