import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir } from '../paths.js';
import { REPO } from '../test-support/corpus.js';

// The launcher is CommonJS and cannot import `paths.ts`: it keeps the cache directory's rule itself,
// and this holds the two equal. It is read from the build, as node runs it.
const LAUNCH = join(REPO, 'dist', 'statusline', 'launch.cjs');
const BUILT = existsSync(LAUNCH);

describe.skipIf(!BUILT)(
  `the status line's launcher${BUILT ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
  () => {
    it('keeps its code cache in the cache directory every other command uses', () => {
      const launch: unknown = createRequire(import.meta.url)(LAUNCH);
      const cacheDirOf =
        launch !== null && typeof launch === 'object' ? Reflect.get(launch, 'cacheDirOf') : null;
      if (typeof cacheDirOf !== 'function') throw new Error('launch.cjs does not export cacheDirOf');
      for (const env of [
        { CCTOP_CACHE_DIR: '/c/cctop', XDG_CACHE_HOME: '/x', HOME: '/h' },
        { XDG_CACHE_HOME: '/x', HOME: '/h' },
        { HOME: '/h' },
        { HOME: '' },
        {},
      ])
        expect(cacheDirOf(env), JSON.stringify(env)).toBe(cacheDir(env));
    });
  },
);
