/** Every harness cctop reads, in the order the tables list them. */
import type { ProviderId } from '../model/facts.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { cursor } from './cursor/index.js';
import { devin } from './devin/index.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { qwen } from './qwen/index.js';
import type { Provider } from './types.js';
import { windsurf } from './windsurf/index.js';

export const PROVIDER_LIST: readonly Provider[] = [
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
];

export const providerById = (id: ProviderId): Provider => {
  const p = PROVIDER_LIST.find((x) => x.id === id);
  if (!p) throw new Error(`unknown provider ${id}`);
  return p;
};

// Whoever asks a provider for a conversation or calls asks through the fence: a throw is an answer.
export { callsOf, conversationOf } from './fence.js';
export type { Env, ParseResult, Provider, Root, SourceFile } from './types.js';
