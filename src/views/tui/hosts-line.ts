/**
 * The live table's line about other machines (`--host`) that are not answering: which, since when,
 * and why, so their dim rows read as what they last said rather than as now. Absent while every host
 * answers (or none is polled).
 */
import type { Paint } from '../cli/color.js';
import { ago } from '../cli/format.js';
import { safeLine } from '../terminal-text.js';
import type { ViewState } from './state.js';

/** The line, or null when there is nothing to say. */
export function hostsLine(v: ViewState, p: Paint, nowMs: number): string | null {
  const quiet = (v.doc?.hosts ?? []).filter((h) => !h.ok);
  if (quiet.length === 0) return null;
  const parts = quiet.map((h) => {
    const name = safeLine(h.host);
    if (h.error === null) return `${name}: connecting…`;
    const last =
      h.answeredAt === null ? 'never answered' : `last answer ${ago(Date.parse(h.answeredAt), nowMs)} ago`;
    return `${name}: ${last}: ${safeLine(h.error)}`;
  });
  return p.amber(`  ${parts.join('  ·  ')}`);
}
