/**
 * The provider table, light half: every harness cctop reads, by id, with what is known of it without
 * reading a file: its label, where it keeps its files, how its sessions are sized, its processes and
 * its resume command. Discovery, a run answering from the index and the live table need nothing
 * more, and importing this loads no parser: the full providers (reading files and conversations)
 * are `index.ts`, for whoever reads a file.
 *
 * The ids and their order are `PROVIDERS` in `model/facts.ts`; this table must have an entry for
 * each, filed under its own id, or it does not compile.
 */
import type { Plan } from '../model/document.js';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { ampPlace } from './amp/place.js';
import { antigravityPlace } from './antigravity/place.js';
import { claudePlace } from './claude/place.js';
import { codebuffPlace } from './codebuff/place.js';
import { codexPlace } from './codex/place.js';
import { copilotPlace } from './copilot/place.js';
import { cursorPlace } from './cursor/place.js';
import { devinPlace } from './devin/place.js';
import { droidPlace } from './droid/place.js';
import { geminiPlace } from './gemini/place.js';
import { goosePlace } from './goose/place.js';
import { grokPlace } from './grok/place.js';
import { hermesPlace } from './hermes/place.js';
import { kiloPlace } from './kilo/place.js';
import { kimiPlace } from './kimi/place.js';
import { openclawPlace } from './openclaw/place.js';
import { opencodePlace } from './opencode/place.js';
import { piPlace } from './pi/place.js';
import { qwenPlace } from './qwen/place.js';
import type { ProviderPlace } from './types.js';
import { windsurfPlace } from './windsurf/place.js';
import { zcodePlace } from './zcode/place.js';

/** Each id's place; the mapped type holds each entry to its own id. */
export type PlaceTable = { readonly [K in ProviderId]: ProviderPlace<K> };

const PLACES: PlaceTable = {
  claude: claudePlace,
  codex: codexPlace,
  gemini: geminiPlace,
  copilot: copilotPlace,
  opencode: opencodePlace,
  pi: piPlace,
  cursor: cursorPlace,
  windsurf: windsurfPlace,
  devin: devinPlace,
  qwen: qwenPlace,
  amp: ampPlace,
  droid: droidPlace,
  codebuff: codebuffPlace,
  hermes: hermesPlace,
  goose: goosePlace,
  kilo: kiloPlace,
  antigravity: antigravityPlace,
  kimi: kimiPlace,
  openclaw: openclawPlace,
  grok: grokPlace,
  zcode: zcodePlace,
};

/** In the order the tables list them. */
export const PLACE_LIST: readonly ProviderPlace[] = PROVIDERS.map((id) => PLACES[id]);

/** The place of `id`; an id that is not one (from a document another machine sent) is refused. */
export function placeById(id: ProviderId): ProviderPlace {
  const p: ProviderPlace | undefined = Object.hasOwn(PLACES, id) ? PLACES[id] : undefined;
  if (!p) throw new Error(`unknown provider ${id}`);
  return p;
}

/**
 * Whether `--plan` bundles `id`'s usage: its cost is then what it would be at retail, shown as
 * included (`max` bundles the harnesses a Claude Max subscription covers; `included`, every one).
 */
export function bundledBy(plan: Plan, id: ProviderId): boolean {
  return plan === 'included' || (plan === 'max' && placeById(id).bundledUnderMax);
}
