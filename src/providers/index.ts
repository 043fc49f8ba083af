/**
 * The provider table, full half: every harness cctop reads, by id, with its readers (files,
 * conversations, calls). Loading this loads every parser; whoever only needs to find files, name a
 * harness or match its processes imports `places.ts` instead.
 *
 * The ids and their order are `PROVIDERS` in `model/facts.ts`; this table must have an entry for
 * each, filed under its own id, or it does not compile.
 */
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { amp } from './amp/index.js';
import { antigravity } from './antigravity/index.js';
import { claude } from './claude/index.js';
import { codebuff } from './codebuff/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { cursor } from './cursor/index.js';
import { devin } from './devin/index.js';
import { droid } from './droid/index.js';
import { gemini } from './gemini/index.js';
import { goose } from './goose/index.js';
import { grok } from './grok/index.js';
import { hermes } from './hermes/index.js';
import { kilo } from './kilo/index.js';
import { kimi } from './kimi/index.js';
import { openclaw } from './openclaw/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { qwen } from './qwen/index.js';
import type { Provider } from './types.js';
import { windsurf } from './windsurf/index.js';
import { zcode } from './zcode/index.js';

/** Each id's provider; the mapped type holds each entry to its own id. */
export type ProviderTable = { readonly [K in ProviderId]: Provider<K> };

const FULL: ProviderTable = {
  claude,
  codex,
  gemini,
  copilot,
  opencode,
  pi,
  cursor,
  windsurf,
  devin,
  qwen,
  amp,
  droid,
  codebuff,
  hermes,
  goose,
  kilo,
  antigravity,
  kimi,
  openclaw,
  grok,
  zcode,
};

/** In the order the tables list them. */
export const PROVIDER_LIST: readonly Provider[] = PROVIDERS.map((id) => FULL[id]);

/** The provider of `id`; an id that is not one (from a document another machine sent) is refused. */
export function providerById(id: ProviderId): Provider {
  const p: Provider | undefined = Object.hasOwn(FULL, id) ? FULL[id] : undefined;
  if (!p) throw new Error(`unknown provider ${id}`);
  return p;
}

// Whoever asks a provider for a conversation or calls asks through the fence: a throw is an answer.
export { callsOf, conversationOf } from './fence.js';
export type { Env, ParseResult, Provider, Root, SourceFile } from './types.js';
