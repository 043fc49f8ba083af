/**
 * OpenClaw (the personal agent gateway, formerly Clawdbot and Moltbot): `agents/<agent>/sessions/*.jsonl`
 * under `~/.openclaw` or `$OPENCLAW_DIR`, in Pi's session format. Finding the sessions is `place.ts`,
 * reading them `parse.ts`; their conversations and calls are Pi's readers, over the same format.
 */
import { pi } from '../pi/index.js';
import { type PiCarry, readPiCarry } from '../pi/parser.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { openclawPlace } from './place.js';

export { openclawPlace, openclawRoots } from './place.js';

export const openclaw: Provider<'openclaw', PiCarry> = {
  ...openclawPlace,
  parse,
  readCarry: readPiCarry,
  conversation: pi.conversation,
  calls: pi.calls,
};
