/**
 * One harness's provider, loaded alone. Reading a few changed transcripts (a patch of the kept
 * sessions) needs the parser of their harness, not all of them: loading every parser costs about
 * 110 ms of CPU at start-up (some 150 modules), Claude Code's alone about 30 ms.
 *
 * Not here: the table of every provider (`index.ts`), which whoever needs them all imports. Each
 * entry below must load its own id's provider, or it does not compile.
 */
import type { ProviderId } from '../model/facts.js';
import type { Provider } from './types.js';

type Loaders = { readonly [K in ProviderId]: () => Promise<Provider<K>> };

const LOADERS: Loaders = {
  claude: async () => (await import('./claude/index.js')).claude,
  codex: async () => (await import('./codex/index.js')).codex,
  gemini: async () => (await import('./gemini/index.js')).gemini,
  copilot: async () => (await import('./copilot/index.js')).copilot,
  opencode: async () => (await import('./opencode/index.js')).opencode,
  pi: async () => (await import('./pi/index.js')).pi,
  cursor: async () => (await import('./cursor/index.js')).cursor,
  windsurf: async () => (await import('./windsurf/index.js')).windsurf,
  devin: async () => (await import('./devin/index.js')).devin,
  qwen: async () => (await import('./qwen/index.js')).qwen,
  amp: async () => (await import('./amp/index.js')).amp,
  droid: async () => (await import('./droid/index.js')).droid,
  codebuff: async () => (await import('./codebuff/index.js')).codebuff,
  hermes: async () => (await import('./hermes/index.js')).hermes,
  goose: async () => (await import('./goose/index.js')).goose,
  kilo: async () => (await import('./kilo/index.js')).kilo,
  antigravity: async () => (await import('./antigravity/index.js')).antigravity,
  kimi: async () => (await import('./kimi/index.js')).kimi,
  openclaw: async () => (await import('./openclaw/index.js')).openclaw,
  grok: async () => (await import('./grok/index.js')).grok,
  zcode: async () => (await import('./zcode/index.js')).zcode,
};

/** The provider of `id`, loading only its own modules; an id that is not one is refused. */
export async function loadProvider(id: ProviderId): Promise<Provider> {
  const load: (() => Promise<Provider>) | undefined = Object.hasOwn(LOADERS, id) ? LOADERS[id] : undefined;
  if (load === undefined) throw new Error(`unknown provider ${id}`);
  return load();
}
