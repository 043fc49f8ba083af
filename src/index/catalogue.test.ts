import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledVersion } from './catalogue.js';

describe('the bundled price catalogue', () => {
  it('is named by the installed @pydantic/genai-prices version, so cached prices do not outlive an update of it', () => {
    const root = join(createRequire(import.meta.url).resolve('@pydantic/genai-prices'), '..', '..');
    const installed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    expect(installed).toMatch(/^\d+\.\d+\.\d+/);
    expect(bundledVersion()).toBe(installed);
  });
});
