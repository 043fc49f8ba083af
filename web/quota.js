// @ts-check
// The dashboard's quota card: a meter per window of each account (5h, 7d, 7d-opus, 7d-sonnet,
// extra), its share used, when it resets, which source said so and how long ago, and cctop's pace
// under the window it projects to run out. Asked from `/api/quota` when the card is first drawn and
// every half minute after; a stale figure is drawn as stale, never as a current meter. Hidden while
// no source says anything (an API-key login writes no quota).

/** @import { QuotaAnswer } from '../src/views/serve/quota.js' */
/** @import { QuotaFigure, QuotaPace } from '../src/model/quota.js' */

import { meter } from './charts.js';
import { fill, h } from './dom.js';
import { ago, duration, harness, ms, UNKNOWN } from './format.js';

/** How often the card asks again: Claude Code refreshes its own cache at most once a minute. */
const QUOTA_EVERY_MS = 30_000;

/** How each source is named (the same words as `cctop quota`). */
const SOURCE = {
  'agent-cache': "agent's cache",
  statusline: 'statusline',
  rollout: 'rollout',
  estimate: "cctop's estimate",
};

/** @type {QuotaAnswer | null} */
let latest = null;
/** @type {HTMLElement | null} the card drawn last, filled again when an answer comes */
let shown = null;
/** @type {ReturnType<typeof setInterval> | null} */
let timer = null;

/**
 * Whether the server's answer has the shape drawn here (it comes from this server, but a page that
 * outlived an upgrade may meet another).
 * @param {unknown} v
 * @returns {v is QuotaAnswer}
 */
const isQuota = (v) =>
  typeof v === 'object' &&
  v !== null &&
  'quota' in v &&
  Array.isArray(v.quota) &&
  'pace' in v &&
  Array.isArray(v.pace);

async function ask() {
  try {
    const res = await fetch('/api/quota', {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    });
    if (!res.ok) return;
    /** @type {unknown} */
    const body = await res.json();
    if (!isQuota(body)) return;
    latest = body;
    if (shown?.isConnected) fillQuota(shown, body);
  } catch {
    // The server is away (restarting, the laptop asleep): the card keeps what it showed, and the
    // next ask tries again.
  }
}

/**
 * One window's line: meter, share, reset, source and age; stale as stale.
 * @param {QuotaFigure} f
 * @param {QuotaPace | undefined} pace
 * @param {number} now
 */
function windowLine(f, pace, now) {
  const used = f.usedPercent;
  const share = f.stale ? 'stale' : used === null ? UNKNOWN : `${Math.round(used)}%`;
  const reset = ms(f.resetsAt);
  const resets =
    reset === null ? '' : reset <= now ? ' · reset passed' : ` · resets in ${duration(reset - now)}`;
  const level = used === null || f.stale ? '' : used >= 90 ? 'hot' : used >= 70 ? 'warm' : '';
  const out = pace?.beforeReset && pace.runsOutAt ? ms(pace.runsOutAt) : null;
  return h(
    'div',
    { class: ['stat-note', 'quota-window', f.stale && 'quota-stale'] },
    f.stale || used === null ? null : meter(used / 100, level),
    ` ${harness(f.harness)} ${f.window}: ${share}${resets} (${SOURCE[f.source]}, ${ago(ms(f.fetchedAt), now)} ago)`,
    out === null
      ? null
      : h('span', { class: 'quota-pace' }, ` · runs out in ${duration(out - now)} (${SOURCE.estimate})`),
  );
}

/**
 * @param {HTMLElement} card
 * @param {QuotaAnswer} q
 */
function fillQuota(card, q) {
  card.hidden = q.quota.length === 0;
  const now = Date.now();
  const current = q.quota.filter((f) => !f.stale && f.usedPercent !== null);
  const fullest = current.reduce(
    /** @param {QuotaFigure | null} a @param {QuotaFigure} f */
    (a, f) => (a === null || (f.usedPercent ?? 0) > (a.usedPercent ?? 0) ? f : a),
    null,
  );
  fill(
    card,
    h('div', { class: 'stat-title' }, 'Quota'),
    h('div', { class: 'stat-value' }, fullest ? `${Math.round(fullest.usedPercent ?? 0)}%` : UNKNOWN),
    q.quota.map((f) =>
      windowLine(
        f,
        q.pace.find((p) => p.harness === f.harness && p.window === f.window),
        now,
      ),
    ),
  );
}

/** The quota card, filled with the newest answer; starts asking the server on first use. */
export function quotaCard() {
  const card = h('div', { class: 'stat quota' });
  card.hidden = true;
  if (latest !== null) fillQuota(card, latest);
  shown = card;
  if (timer === null) {
    void ask();
    timer = setInterval(() => void ask(), QUOTA_EVERY_MS);
  }
  return card;
}
