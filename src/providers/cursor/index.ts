/**
 * Cursor: the agent's transcripts, `projects/<project>/agent-transcripts/<id>/<id>.jsonl` (older
 * builds: `agent-transcripts/<id>.jsonl`) under `$CURSOR_HOME` or `~/.cursor`. Other transcripts
 * inside a session's folder (its `subagents/`, or beside the main one) are subagents counted toward
 * it.
 *
 * known limit: the project folder name is the workspace path with `/` turned into `-`, which cannot be
 * turned back (a `-` in a directory name reads the same), so the project is left unknown rather than
 * guessed.
 *
 * Finding the transcripts and the window rules are in `place.ts`; reading them is `parse.ts`: cctop
 * has no conversation reader for Cursor.
 */

import { readNoCarry } from '../carry.js';
import type { Provider } from '../types.js';
import { parse } from './parse.js';
import { cursorPlace } from './place.js';

export { cursorPlace, cursorRoots } from './place.js';

export const cursor: Provider<'cursor', null> = { ...cursorPlace, parse, readCarry: readNoCarry };
