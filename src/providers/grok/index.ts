/**
 * Grok Build CLI (xAI's `grok`): one session per `sessions/<cwd>/<id>/updates.jsonl` under
 * `$GROK_HOME` or `~/.grok`. Finding the sessions is `place.ts`; reading them is `parse.ts`.
 */
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { type GrokCarry, readGrokCarry } from './parser.js';
import { grokPlace } from './place.js';

export { grokPlace, grokRoots } from './place.js';

export const grok: Provider<'grok', GrokCarry> = { ...grokPlace, parse, readCarry: readGrokCarry };
