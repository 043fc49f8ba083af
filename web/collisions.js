// @ts-check
// Collisions on the page: running sessions that lately wrote the same file, or in the same repository
// (the document's `collisions`, kept current by the server's updates). The dashboard shows a badge on
// each session's row and a card per collision above the table; a session's page shows the ones it is
// in. Every path and title is an agent's words and goes in as text.
//
// What the server sent is checked for its shape here, once, before anything reads it.

/** @import { Collision, CollisionLevel, CollisionWriter } from '../src/model/collision.js' */
/** @import { SessionDocument } from '../src/model/document.js' */

import { h, navLink, sessionHref } from './dom.js';
import { ago, basename, clean, harness, ms } from './format.js';

/** What each level says on a badge, and in a sentence on hover. */
const BADGE = {
  file: { text: 'same file', title: 'Another running session lately wrote a file this one wrote.' },
  repo: {
    text: 'same repo',
    title: 'Another running session lately wrote in the same repository (no file in common).',
  },
};

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * @param {unknown} v
 * @returns {v is CollisionWriter}
 */
const isWriter = (v) =>
  isObject(v) &&
  typeof v.provider === 'string' &&
  typeof v.id === 'string' &&
  (v.title === null || typeof v.title === 'string') &&
  (v.project === null || typeof v.project === 'string') &&
  typeof v.wroteAt === 'string' &&
  Array.isArray(v.paths) &&
  v.paths.every((p) => typeof p === 'string');

/**
 * @param {unknown} v
 * @returns {v is Collision}
 */
const isCollision = (v) =>
  isObject(v) &&
  typeof v.key === 'string' &&
  (v.level === 'file' || v.level === 'repo') &&
  typeof v.repoRoot === 'string' &&
  (v.path === null || typeof v.path === 'string') &&
  Array.isArray(v.sessions) &&
  v.sessions.every(isWriter);

/** @type {WeakMap<SessionDocument, Collision[]>} */
const checked = new WeakMap();

/**
 * The document's collisions that read as collisions (none for a document from a server without them).
 * @param {SessionDocument} doc
 * @returns {Collision[]}
 */
export function collisionsOf(doc) {
  let list = checked.get(doc);
  if (list === undefined) {
    const raw = /** @type {unknown} */ (doc.collisions);
    list = Array.isArray(raw) ? raw.filter(isCollision) : [];
    checked.set(doc, list);
  }
  return list;
}

/**
 * @param {{ provider: string, id: string }} s
 */
const keyOf = (s) => `${s.provider}:${s.id}`;

/**
 * Each session's highest level of collision, by `provider:id`.
 * @param {Collision[]} collisions
 * @returns {Map<string, CollisionLevel>}
 */
export function collisionLevels(collisions) {
  /** @type {Map<string, CollisionLevel>} */
  const out = new Map();
  for (const c of collisions)
    for (const w of c.sessions) if (out.get(keyOf(w)) !== 'file') out.set(keyOf(w), c.level);
  return out;
}

/**
 * The collisions a session is in.
 * @param {Collision[]} collisions
 * @param {{ provider: string, id: string }} s
 */
export const collisionsWith = (collisions, s) =>
  collisions.filter((c) => c.sessions.some((w) => w.provider === s.provider && w.id === s.id));

/**
 * Write a row's badge: its level's words, or nothing.
 * @param {HTMLElement} el
 * @param {CollisionLevel | null} level
 */
export function drawBadge(el, level) {
  const want = level === null ? '' : BADGE[level].text;
  if (el.textContent !== want) el.textContent = want;
  el.className = level === null ? 'collision-badge' : `collision-badge ${level}`;
  if (level === null) el.removeAttribute('title');
  else el.title = BADGE[level].title;
}

/**
 * A path below its repository, else as it is.
 * @param {string} root
 * @param {string} path
 */
const inRepo = (root, path) => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);

/**
 * One card: the file (or the repository) and each session that wrote there, with a link to it.
 * @param {Collision} c
 * @param {number} now
 * @param {{ provider: string, id: string } | null} self the session whose page this is, if any
 */
function card(c, now, self) {
  const repo = basename(c.repoRoot) ?? c.repoRoot;
  const what =
    c.level === 'file' && c.path !== null
      ? h(
          'span',
          { class: 'collision-what' },
          h('code', null, clean(inRepo(c.repoRoot, c.path))),
          ` in ${repo}`,
        )
      : h('span', { class: 'collision-what' }, `${repo}: the same repository, no file in common`);
  return h(
    'li',
    { class: `collision ${c.level}`, title: c.repoRoot },
    h('span', { class: 'collision-mark' }, c.level === 'file' ? '!' : '~'),
    what,
    h(
      'ul',
      { class: 'collision-sessions' },
      c.sessions.map((w) => {
        const me = self !== null && w.provider === self.provider && w.id === self.id;
        const name = clean(w.title ?? w.id);
        const paths =
          c.level === 'repo' ? ` · ${w.paths.map((p) => clean(inRepo(c.repoRoot, p))).join(', ')}` : '';
        return h(
          'li',
          null,
          me ? h('strong', null, 'this session') : navLink(sessionHref(w.id), null, name),
          ` · ${harness(w.provider)} · wrote ${ago(ms(w.wroteAt), now)} ago${paths}`,
        );
      }),
    ),
  );
}

/**
 * The dashboard's collisions section: nothing when there are none.
 * @param {Collision[]} collisions
 * @param {number} now
 */
export function collisionCards(collisions, now) {
  if (collisions.length === 0) return null;
  return [
    h('h2', null, 'Collisions'),
    h(
      'ul',
      { class: 'collision-list' },
      collisions.map((c) => card(c, now, null)),
    ),
  ];
}

/**
 * A session page's collisions: the ones it is in, nothing when it is in none.
 * @param {Collision[]} collisions
 * @param {{ provider: string, id: string }} s
 * @param {number} now
 */
export function sessionCollisions(collisions, s, now) {
  const mine = collisionsWith(collisions, s);
  if (mine.length === 0) return null;
  return h(
    'section',
    { class: 'card collisions', 'aria-label': 'collisions' },
    h(
      'h2',
      null,
      mine.some((c) => c.level === 'file')
        ? 'Writing the same file as another agent'
        : 'Sharing a repository',
    ),
    h(
      'ul',
      { class: 'collision-list' },
      mine.map((c) => card(c, now, s)),
    ),
  );
}
