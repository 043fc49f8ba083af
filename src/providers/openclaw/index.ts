/**
 * OpenClaw (the personal agent gateway, formerly Clawdbot and Moltbot): `agents/<agent>/sessions/*.jsonl`
 * under `~/.openclaw` or `$OPENCLAW_DIR`. Finding the sessions is `place.ts`, reading them `parse.ts`.
 * OpenClaw writes Pi's session format, so its conversations and calls are Pi's readers.
 */
import { pi } from '../pi/index.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { type ClawCarry, readClawCarry } from './parser.js';
import { openclawPlace } from './place.js';

export { openclawPlace, openclawRoots } from './place.js';

export const openclaw: Provider<'openclaw', ClawCarry> = {
  ...openclawPlace,
  parse,
  readCarry: readClawCarry,
  conversation: pi.conversation,
  calls: pi.calls,
};
