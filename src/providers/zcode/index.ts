/**
 * ZCode (Z.ai's desktop coding app): its usage database `cli/db/db.sqlite` under `~/.zcode` or
 * `$ZCODE_HOME`, one session per `session_id`. Listing them is `place.ts`; reading one is `parse.ts`.
 */
import { readNoCarry } from '../carry.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { zcodePlace } from './place.js';

export { zcodePlace, zcodeRoots } from './place.js';

export const zcode: Provider<'zcode', null> = { ...zcodePlace, parse, readCarry: readNoCarry };
