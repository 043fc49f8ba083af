/**
 * The parser version of each provider: a digest of the compiled code that turns its files into
 * facts. Any edit to that code changes the digest, and the index re-reads exactly that provider's
 * files; nothing is invalidated by hand, and nothing is forgotten.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Digest } from '../model/digest.js';
import type { ProviderId } from '../model/facts.js';

/** The modules every provider's reading depends on, relative to this file. */
const SHARED = [
  '../model/facts.js',
  '../model/ledger.js',
  '../model/json.js',
  '../model/state.js',
  '../providers/jsonl.js',
  '../providers/read.js',
  '../providers/skim.js',
  '../providers/types.js',
  '../providers/fsutil.js',
];

const OWN: Record<ProviderId, string[]> = {
  claude: [
    '../providers/claude/index.js',
    '../providers/claude/place.js',
    '../providers/claude/parser.js',
    '../providers/claude/record.js',
    '../providers/claude/bytes.js',
  ],
  codex: [
    '../providers/codex/index.js',
    '../providers/codex/place.js',
    '../providers/codex/parser.js',
    '../providers/codex/record.js',
    '../providers/codex/bytes.js',
  ],
  gemini: [
    '../providers/gemini/index.js',
    '../providers/gemini/place.js',
    '../providers/gemini/parser.js',
    '../providers/gemini/record.js',
  ],
  copilot: [
    '../providers/copilot/index.js',
    '../providers/copilot/place.js',
    '../providers/copilot/parser.js',
    '../providers/copilot/record.js',
  ],
  opencode: [
    '../providers/opencode/index.js',
    '../providers/opencode/place.js',
    '../providers/opencode/parser.js',
    '../providers/opencode/record.js',
    '../providers/opencode/db.js',
    '../providers/opencode/storage.js',
    '../providers/sqlite.js',
  ],
  pi: [
    '../providers/pi/index.js',
    '../providers/pi/place.js',
    '../providers/pi/parser.js',
    '../providers/pi/record.js',
  ],
  cursor: [
    '../providers/cursor/index.js',
    '../providers/cursor/place.js',
    '../providers/cursor/parser.js',
    '../providers/cursor/record.js',
  ],
  windsurf: [
    '../providers/windsurf/index.js',
    '../providers/windsurf/place.js',
    '../providers/windsurf/record.js',
    '../providers/sqlite.js',
  ],
  devin: [
    '../providers/devin/index.js',
    '../providers/devin/place.js',
    '../providers/devin/parser.js',
    '../providers/devin/record.js',
    '../providers/sqlite.js',
  ],
  qwen: [
    '../providers/qwen/index.js',
    '../providers/qwen/place.js',
    '../providers/qwen/parser.js',
    '../providers/qwen/record.js',
  ],
};

/** `.js` when running compiled, `.ts` when the tests run the sources. */
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

const cache = new Map<ProviderId, string>();

/** Each module's bytes, read once: the shared modules are part of every provider's version. */
const sources = new Map<string, Buffer>();

function source(rel: string): Buffer {
  let s = sources.get(rel);
  if (s === undefined) {
    try {
      s = readFileSync(fileURLToPath(new URL(rel.replace(/\.js$/, extension), import.meta.url)));
    } catch {
      // Running from sources without this module: fold its name in instead.
      s = Buffer.from(rel);
    }
    sources.set(rel, s);
  }
  return s;
}

export function parserVersion(provider: ProviderId): string {
  let v = cache.get(provider);
  if (v === undefined) {
    const h = new Digest();
    for (const rel of [...SHARED, ...OWN[provider]]) h.bytes(source(rel));
    v = h.hex();
    cache.set(provider, v);
  }
  return v;
}

/** The modules that turn facts into session documents: any edit retires the kept documents. */
const BUILD = [
  './sessions.js',
  './built.js',
  '../model/cost.js',
  '../model/dedupe.js',
  '../model/document.js',
  '../model/ledger.js',
  '../model/pricing.js',
  '../model/problems.js',
  '../model/state.js',
  '../model/time.js',
  '../model/usage.js',
];

let build: string | undefined;

/** A digest of the building code and of every provider's parser (which also holds its window rules). */
export function buildVersion(): string {
  if (build === undefined) {
    const h = new Digest();
    for (const rel of BUILD) h.bytes(source(rel));
    for (const id of Object.keys(OWN) as ProviderId[]) h.string(parserVersion(id));
    build = h.hex();
  }
  return build;
}
