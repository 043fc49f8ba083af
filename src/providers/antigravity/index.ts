/**
 * Antigravity (Google's agent CLI, `agy`): one SQLite database per conversation under
 * `conversations/` in `~/.gemini/antigravity-cli` (or `$ANTIGRAVITY_DATA_DIR`). Finding them is
 * `place.ts`; reading their usage is `parse.ts`, the blobs' fields `record.ts`.
 */
import { readNoCarry } from '../carry.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { antigravityPlace } from './place.js';

export { antigravityPlace, antigravityRoots } from './place.js';

export const antigravity: Provider<'antigravity', null> = {
  ...antigravityPlace,
  parse,
  readCarry: readNoCarry,
};
