import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../model/facts.js';
import { REPO, tempDir } from '../test-support/corpus.js';
import { beside, CodeGraph, parserVersion, providerEntry, relativeImports } from './version.js';

const imports = (source: string) => relativeImports(Buffer.from(source)).sort();

describe('the imports a module is read for', () => {
  it('are its relative imports and re-exports, as tsc writes them, and nothing from packages', () => {
    const compiled = [
      "import { readFileSync } from 'node:fs';",
      "import Database from 'better-sqlite3';",
      "import { emptyFacts, noteModel } from '../../model/facts.js';",
      "import { PendingCalls } from '../pending.js';",
      "export { claudePlace, claudeRoots } from './place.js';",
      "export * from './record.js';",
      "import './side-effect.js';",
      "const later = () => import('./lazy.js');",
      "const s = 'see ./not-an-import.js';",
    ].join('\n');
    expect(imports(compiled)).toEqual([
      '../../model/facts.js',
      '../pending.js',
      './lazy.js',
      './place.js',
      './record.js',
      './side-effect.js',
    ]);
  });

  it('a type-only import in a source is not followed: the compiler erases it', () => {
    const source = [
      "import type { Env, ProviderPlace } from '../types.js';",
      "import { type FileFacts, oneLine } from '../model/facts.js';",
      "export type { Root } from './types.js';",
      "import {\n  type CarriedCall,\n  PendingCalls,\n} from '../pending.js';",
    ].join('\n');
    expect(imports(source)).toEqual(['../model/facts.js', '../pending.js']);
  });

  it('a module with no relative import has none', () => {
    expect(imports("import { crc32 } from 'node:zlib';\nexport const x = 1;")).toEqual([]);
  });
});

describe('the module an import names', () => {
  it('is found beside the importing module, up as many folders as it climbs', () => {
    expect(beside('/p/dist/providers/claude/parse.js', './parser.js')).toBe(
      '/p/dist/providers/claude/parser.js',
    );
    expect(beside('/p/dist/providers/claude/parse.js', '../read.js')).toBe('/p/dist/providers/read.js');
    expect(beside('/p/dist/providers/claude/parse.js', '../../model/facts.js')).toBe(
      '/p/dist/model/facts.js',
    );
  });

  it('a specifier that climbs further in is resolved by the general rule', () => {
    expect(beside('/p/dist/index/sessions.js', './x/../record.js')).toBe('/p/dist/index/record.js');
  });
});

describe('the version of a module graph', () => {
  let t: ReturnType<typeof tempDir>;
  afterEach(() => t.cleanup());

  /** A small compiled tree: two providers sharing a model module, each with a parser of its own. */
  const files: Record<string, string> = {
    'model/facts.js': 'export const emptyFacts = () => ({});\n',
    'providers/pending.js': 'export class PendingCalls {}\n',
    'providers/alpha/index.js':
      "import { AlphaParser } from './parser.js';\nexport { alphaPlace } from './place.js';\n",
    'providers/alpha/parser.js':
      "import { emptyFacts } from '../../model/facts.js';\nexport class AlphaParser {}\n",
    'providers/alpha/place.js': "export const alphaPlace = { id: 'alpha' };\n",
    'providers/beta/index.js': "import { BetaParser } from './parser.js';\n",
    'providers/beta/parser.js':
      "import { emptyFacts } from '../../model/facts.js';\nimport { PendingCalls } from '../pending.js';\nexport class BetaParser {}\n",
  };
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(t.dir, rel)), { recursive: true });
    writeFileSync(join(t.dir, rel), text);
  };
  const url = (rel: string) => join(t.dir, rel);
  const root = () => `${t.dir}/`;
  /** Each provider's version as a fresh run computes it (a process reads each module once). */
  const versions = () => {
    const g = new CodeGraph();
    return {
      alpha: g.digest([url('providers/alpha/index.js')], root()),
      beta: g.digest([url('providers/beta/index.js')], root()),
    };
  };

  beforeEach(() => {
    t = tempDir();
    for (const [rel, text] of Object.entries(files)) write(rel, text);
  });

  it('is every module its entry reaches, and no other', () => {
    const reached = new CodeGraph()
      .modules([url('providers/beta/index.js')])
      .map((u) => u.slice(root().length));
    expect(reached).toEqual([
      'model/facts.js',
      'providers/beta/index.js',
      'providers/beta/parser.js',
      'providers/pending.js',
    ]);
  });

  it('an edit to a module only one provider reaches changes that provider’s version only', () => {
    const before = versions();
    write('providers/alpha/parser.js', `${files['providers/alpha/parser.js']}// a fix\n`);
    const after = versions();
    expect(after.alpha).not.toBe(before.alpha);
    expect(after.beta).toBe(before.beta);
  });

  it('an edit to a module both reach changes both', () => {
    const before = versions();
    write('model/facts.js', 'export const emptyFacts = () => ({ lines: 0 });\n');
    const after = versions();
    expect(after.alpha).not.toBe(before.alpha);
    expect(after.beta).not.toBe(before.beta);
  });

  it('a module newly imported counts from then on, with nobody listing it', () => {
    write('providers/alpha/title.js', 'export const rule = 1;\n');
    const before = versions();
    write(
      'providers/alpha/parser.js',
      `import { rule } from './title.js';\n${files['providers/alpha/parser.js']}`,
    );
    const between = versions();
    write('providers/alpha/title.js', 'export const rule = 2;\n');
    expect(between.alpha).not.toBe(before.alpha);
    expect(versions().alpha).not.toBe(between.alpha);
    expect(versions().beta).toBe(before.beta);
  });

  it('the same code gives the same version, run after run', () => {
    expect(versions()).toEqual(versions());
  });

  it('a package a module loads by name counts where that module is reached: a new release of it changes those versions only', () => {
    write('secrets/detect.js', 'export const findSecrets = () => [];\n');
    write(
      'providers/alpha/parser.js',
      `import './../../secrets/detect.js';\n${files['providers/alpha/parser.js']}`,
    );
    let release = 'preset@11.7.1 aws@11.7.1';
    const loads = (module: string) => (module === 'secrets/detect' ? release : null);
    const graph = () => {
      const g = new CodeGraph(loads);
      return {
        alpha: g.digest([url('providers/alpha/index.js')], root()),
        beta: g.digest([url('providers/beta/index.js')], root()),
      };
    };
    const before = graph();
    expect(graph()).toEqual(before);
    release = 'preset@11.8.0 aws@11.8.0 azure@11.8.0';
    const after = graph();
    expect(after.alpha).not.toBe(before.alpha);
    expect(after.beta).toBe(before.beta);
  });
});

describe('each provider’s parser version', () => {
  const graph = new CodeGraph();

  it.each(PROVIDERS)('%s is computed from its own reading code, never from another harness’s', (id) => {
    const reached = graph.modules([providerEntry(id)]);
    expect(reached).toContain(providerEntry(id));
    expect(reached.some((u) => u.includes(`/providers/${id}/record.`))).toBe(true);
    const others = PROVIDERS.filter((o) => o !== id);
    expect(reached.filter((u) => others.some((o) => u.includes(`/providers/${o}/`)))).toEqual([]);
  });

  it('leaves out a conversation reader that reading the files does not use', () => {
    const reached = graph.modules([providerEntry('claude')]);
    expect(reached.some((u) => u.endsWith('/providers/claude/parser.ts'))).toBe(true);
    expect(reached.filter((u) => /\/(conversation|calls)\.ts$/.test(u))).toEqual([]);
  });

  it('reaches the shared folding helpers of the harnesses that use them', () => {
    for (const id of ['claude', 'codex', 'copilot', 'pi', 'qwen'] as const) {
      expect(graph.modules([providerEntry(id)]).some((u) => u.endsWith('/providers/pending.ts'))).toBe(true);
    }
  });

  it('of both harnesses that write Pi’s session format reaches the one reader of that format', () => {
    for (const id of ['pi', 'openclaw'] as const) {
      expect(graph.modules([providerEntry(id)]).some((u) => u.endsWith('/providers/pi-format.ts'))).toBe(
        true,
      );
    }
  });

  it('differs from harness to harness', () => {
    expect(new Set(PROVIDERS.map(parserVersion)).size).toBe(PROVIDERS.length);
  });
});

describe('the building code’s version', () => {
  it('changes with the redaction rules’ identity: a build redacts the titles it stores', () => {
    const top = providerEntry('claude').slice(0, -'providers/claude/parse.ts'.length);
    const withRules = (identity: string) =>
      new CodeGraph((m) => (m === 'secrets/detect' ? identity : null)).digest(
        [`${top}index/sessions.ts`],
        top,
      );
    expect(withRules('preset@1')).not.toBe(withRules('preset@2'));
    expect(withRules('preset@1')).toBe(withRules('preset@1'));
  });
});

const RECORDED = join(REPO, 'dist', 'index', 'code-versions.js');
const HAVE_RECORDED = existsSync(RECORDED);

describe('the versions `npm run build` records', () => {
  it.skipIf(!HAVE_RECORDED)(
    `are the ones the compiled code digests to, and a run uses them${HAVE_RECORDED ? '' : ' (skipped: dist has no recorded versions; npm run build)'}`,
    async () => {
      const compiled: unknown = await import(pathToFileURL(join(REPO, 'dist', 'index', 'version.js')).href);
      const {
        buildVersion,
        computedVersions,
        parserVersion: parser,
      } = compiled as typeof import('./version.js');
      const digested = computedVersions();
      expect(buildVersion()).toBe(digested.build);
      for (const id of PROVIDERS) expect(parser(id)).toBe(digested.parsers[id]);
      // Used, not recomputed: the recorded module holds these very strings.
      const text = readFileSync(RECORDED, 'utf8');
      expect(text).toContain(`"build": "${digested.build}"`);
    },
  );
});
