/**
 * Every harness cctop reads, light: where each keeps its files and how its sessions are sized, in
 * the order the tables list them (the order of `PROVIDER_LIST` in `index.ts`). Discovery and a run
 * answering from the index need nothing more, and importing this loads no parser: the full
 * providers (reading files and conversations) are `index.ts`, for whoever reads a file.
 */
import type { ProviderId } from '../model/facts.js';
import { claudePlace } from './claude/place.js';
import { codexPlace } from './codex/place.js';
import { copilotPlace } from './copilot/place.js';
import { cursorPlace } from './cursor/place.js';
import { devinPlace } from './devin/place.js';
import { geminiPlace } from './gemini/place.js';
import { opencodePlace } from './opencode/place.js';
import { piPlace } from './pi/place.js';
import { qwenPlace } from './qwen/place.js';
import type { ProviderPlace } from './types.js';
import { windsurfPlace } from './windsurf/place.js';

export const PLACE_LIST: readonly ProviderPlace[] = [
  claudePlace,
  codexPlace,
  geminiPlace,
  copilotPlace,
  opencodePlace,
  piPlace,
  cursorPlace,
  windsurfPlace,
  devinPlace,
  qwenPlace,
];

export const placeById = (id: ProviderId): ProviderPlace => {
  const p = PLACE_LIST.find((x) => x.id === id);
  if (!p) throw new Error(`unknown provider ${id}`);
  return p;
};
