/**
 * What a collision says, in the same words in the terminal and on the page: a short title, one
 * sentence, and the one line the live table's status shows. Plain text holding transcript words (a
 * title, a path an agent wrote): the terminal makes it safe where it prints it (`safeLine`); the page
 * hands it to the browser's notifications, which show text.
 *
 * Not here: which collisions there are (`live/collisions.ts`) or how each view rings.
 */
import { basename, relative, sep } from 'node:path';
import { COLLISION_WINDOW_MS } from '../live/collisions.js';
import type { Collision, CollisionWriter } from '../model/collision.js';

/** A session's name in a collision is cut to this many characters: there are two or more to name. */
const LABEL_CHARS = 40;

/** The session as a collision names it: its title, else its id. */
export function writerLabel(w: Pick<CollisionWriter, 'title' | 'id'>): string {
  const name = (w.title ?? w.id).replace(/\s+/g, ' ').trim();
  const chars = Array.from(name);
  return chars.length <= LABEL_CHARS ? name : `${chars.slice(0, LABEL_CHARS - 1).join('')}…`;
}

/** A path inside the repository, as the repository's folder name and the path below it. */
export function inRepo(repoRoot: string, path: string): string {
  const below = relative(repoRoot, path);
  return below.startsWith(`..${sep}`) || below === '..' || below === '' ? path : below;
}

/** `A and B`, `A, B and 2 more`. */
function who(sessions: readonly CollisionWriter[]): string {
  const names = sessions.slice(0, 2).map(writerLabel);
  const more = sessions.length - names.length;
  if (more > 0) return `${names.join(', ')} and ${more} more`;
  return names.join(' and ');
}

export interface CollisionText {
  title: string;
  body: string;
}

const WINDOW = `the last ${COLLISION_WINDOW_MS / 60_000} minutes`;

export function collisionText(c: Collision): CollisionText {
  const repo = basename(c.repoRoot);
  const n = c.sessions.length;
  const wrote = n === 2 ? 'both wrote' : 'all wrote';
  if (c.level === 'file' && c.path !== null)
    return {
      title: `${n} agents writing ${basename(c.path)}`,
      body: `${who(c.sessions)} ${wrote} ${inRepo(c.repoRoot, c.path)} in ${repo} in ${WINDOW}`,
    };
  return {
    title: `${n} agents writing in ${repo}`,
    body: `${who(c.sessions)} ${wrote} files in ${repo} in ${WINDOW} (no file in common yet)`,
  };
}

/** The collision on one line (the live table's status line and its desktop notice). */
export function collisionLine(c: Collision): string {
  const { title, body } = collisionText(c);
  return `${title}: ${body}`;
}
