/**
 * Windsurf: `workspaceStorage/<workspace>/state.vscdb` under its user directory (`$WINDSURF_USER_DIR`,
 * else the platform's `Windsurf/User`), one chat tab per session, named `<state.vscdb>#<tab id>`
 * (see `../sqlite.ts`). What the chat data holds is its title and its tool calls: no model, no
 * tokens, no outcomes and no times, so cost and tokens are absent, failures `─`, and the session's
 * last activity is when the database was last written.
 *
 * Finding the chats and the window rules are in `place.ts`; reading one is `parse.ts`: cctop has no
 * conversation reader for Windsurf.
 */

import { readNoCarry } from '../carry.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { windsurfPlace } from './place.js';

export { MAX_CHAT_BYTES, windsurfPlace, windsurfRoots } from './place.js';

export const windsurf: Provider<'windsurf', null> = { ...windsurfPlace, parse, readCarry: readNoCarry };
