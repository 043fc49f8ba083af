/**
 * The live table's view of collisions: the mark a row carries when its session is in one (`!` two
 * sessions wrote the same file, `~` the same repository with no file in common), the count in the
 * header, and the Collisions panel: every collision, the selected session's first, with its
 * repository, its file, and each session and when it last wrote there.
 *
 * Every path and title is an agent's words and is made safe to print here (`safeLine`).
 */
import { COLLISION_WINDOW_MS, collisionMarks } from '../../live/collisions.js';
import type { Collision, CollisionLevel } from '../../model/collision.js';
import type { SessionDoc } from '../../model/document.js';
import { placeById } from '../../providers/places.js';
import type { Paint } from '../cli/color.js';
import { ago, clip, padEnd } from '../cli/format.js';
import { inRepo, writerLabel } from '../collision-text.js';
import { safeLine } from '../terminal-text.js';
import { keyOf, type ViewState } from './state.js';

/** The mark of each level, as the rows and the panel show it. */
export const COLLISION_MARK: Record<CollisionLevel, string> = { file: '!', repo: '~' };

/** The marks change only with the collisions: worked out once per list, not on every redraw. */
const marksMemo = new WeakMap<readonly Collision[], Map<string, CollisionLevel>>();

/** Which level of collision a session is in, if any. */
export function collisionOf(v: ViewState, s: SessionDoc): CollisionLevel | null {
  let marks = marksMemo.get(v.collisions);
  if (marks === undefined) {
    marks = collisionMarks(v.collisions);
    marksMemo.set(v.collisions, marks);
  }
  return marks.get(keyOf(s)) ?? null;
}

/** The cell after the state mark: `!` in red, `~` in amber, else a space. */
export function collisionCell(level: CollisionLevel | null, p: Paint): string {
  if (level === null) return ' ';
  return level === 'file' ? p.red(COLLISION_MARK.file) : p.amber(COLLISION_MARK.repo);
}

/** The header's word on collisions, or null when there are none. */
export function collisionCount(collisions: readonly Collision[], p: Paint): string | null {
  const files = collisions.filter((c) => c.level === 'file').length;
  const repos = collisions.length - files;
  const parts: string[] = [];
  if (files > 0) parts.push(`${p.red(COLLISION_MARK.file)} ${files} same file`);
  if (repos > 0) parts.push(`${p.amber(COLLISION_MARK.repo)} ${repos} same repo`);
  return parts.length === 0 ? null : parts.join('  ');
}

const involves = (c: Collision, s: SessionDoc): boolean =>
  c.sessions.some((w) => w.provider === s.provider && w.id === s.id);

/** The Collisions panel: the selected session's collisions first, then the others. */
export function collisionsPanel(
  v: ViewState,
  s: SessionDoc,
  p: Paint,
  columns: number,
  now: number,
): string[] {
  const all = v.collisions;
  if (all.length === 0)
    return [
      p.dim(
        `  no collisions: no two running sessions wrote the same file or repository in the last ${COLLISION_WINDOW_MS / 60_000} minutes`,
      ),
    ];
  const mine = all.filter((c) => involves(c, s));
  const others = all.filter((c) => !involves(c, s));
  const out: string[] = [];
  if (mine.length === 0) out.push(p.dim('  this session collides with no other'));
  for (const c of mine) out.push(...collisionLines(c, s, p, now));
  if (others.length > 0) {
    out.push(p.dim(`  elsewhere (${others.length})`));
    for (const c of others) out.push(...collisionLines(c, s, p, now));
  }
  return out.map((l) => clip(l, columns));
}

/** One collision: what was written where, then each session, the selected one marked `▸`. */
function collisionLines(c: Collision, selected: SessionDoc, p: Paint, now: number): string[] {
  const repo = safeLine(c.repoRoot);
  const head =
    c.level === 'file' && c.path !== null
      ? `  ${p.red(COLLISION_MARK.file)} ${p.bold(safeLine(inRepo(c.repoRoot, c.path)))}  ${p.dim(`in ${repo}`)}`
      : `  ${p.amber(COLLISION_MARK.repo)} ${p.bold(repo)}  ${p.dim('same repository, no file in common')}`;
  const lines = [head];
  for (const w of c.sessions) {
    const me = w.provider === selected.provider && w.id === selected.id;
    const harness = placeById(w.provider).label.split(' ')[0]!;
    const when = ago(Date.parse(w.wroteAt), now);
    const wrote =
      c.level === 'repo' ? `  ${p.dim(w.paths.map((x) => safeLine(inRepo(c.repoRoot, x))).join(', '))}` : '';
    lines.push(
      `    ${me ? '▸' : ' '} ${padEnd(harness, 8)} ${padEnd(safeLine(writerLabel(w)), 40)} wrote ${when} ago${wrote}`,
    );
  }
  return lines;
}
