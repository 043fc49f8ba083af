import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { PRESET, rulesIdentity } from './rules.js';

describe('the identity of the redaction rules', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  /** A module in the temp tree, from which packages are looked for. */
  const from = () => pathToFileURL(join(t.dir, 'app', 'main.js')).href;
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(t.dir, rel)), { recursive: true });
    writeFileSync(join(t.dir, rel), text);
  };

  it('is the preset’s version and each rule it bundles with its version, and nothing it is only built with', () => {
    const dir = `node_modules/${PRESET}`;
    write(`${dir}/module/index.js`, 'export const creator = { rules: [] };\n');
    write(
      `${dir}/package.json`,
      JSON.stringify({
        name: PRESET,
        version: '12.0.0',
        main: './module/index.js',
        devDependencies: {
          '@secretlint/secretlint-rule-slack': '12.0.0',
          '@secretlint/secretlint-rule-aws': '12.0.0',
          '@secretlint/tester': '12.0.0',
          rollup: '^4.60.1',
        },
      }),
    );
    expect(rulesIdentity(from())).toBe(`${PRESET}@12.0.0 aws@12.0.0 slack@12.0.0`);
  });

  it('says the preset is not installed, so that installing it later counts as a change', () => {
    expect(rulesIdentity(from())).toBe(`${PRESET} not installed`);
  });

  it('of the installed preset names the version package.json pins', async () => {
    const { default: pkg } = await import('../../package.json', { with: { type: 'json' } });
    expect(rulesIdentity()).toMatch(
      new RegExp(`^${PRESET}@${pkg.dependencies[PRESET].replaceAll('.', '\\.')} `),
    );
  });
});
