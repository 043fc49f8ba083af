/**
 * Kimi CLI (MoonshotAI's `kimi`): one session per `sessions/<work dir hash>/<id>/wire.jsonl` under
 * `$KIMI_DATA_DIR` or `~/.kimi`. Finding the sessions is `place.ts`; reading them into facts is
 * `parse.ts`.
 *
 * Known limit: no conversation reader yet (`noConversation` in the place says so); the wire holds the
 * turns (`TurnBegin`, `ContentPart`, `ToolCall`, `ToolResult`), and reading them is the next step.
 */
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { type KimiCarry, readKimiCarry } from './parser.js';
import { kimiPlace } from './place.js';

export { kimiPlace, kimiRoots } from './place.js';

export const kimi: Provider<'kimi', KimiCarry> = { ...kimiPlace, parse, readCarry: readKimiCarry };
