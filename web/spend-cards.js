// @ts-check
// The Spend screen's cards: Claude Code's running 5-hour block and the last finished ones, and the
// budgets with a share bar each. Every figure is as `/api/spend` gives it.
//
// Not here: fetching (spend.js), the chart (spend-chart.js).

/** @import { SessionDocument } from '../src/model/document.js' */
/** @import { ProviderId } from '../src/model/facts.js' */
/** @import { SpendAnswer } from '../src/views/serve/spend.js' */
/** @import { BlockJson, BudgetJson } from '../src/spend/json.js' */
/** @import { Group, PeriodRow, SplitBy } from '../src/spend/periods.js' */
/** @import { SpendTally } from '../src/spend/tally.js' */
/** @import { Child } from './dom.js' */

import { h, s } from './dom.js';
import { clean, duration, harness, localTime, percent, shortModel, tokens, UNKNOWN, usd } from './format.js';
import { costText, NO_PRICE } from './spend-chart.js';

/** Where a budget reads as near its limit (NEAR_SHARE in src/config/budgets.ts): its bar's tick. */
const NEAR_SHARE = 0.8;

/**
 * The running block: when it ends, what it has cost, how fast, and where that leads by its end.
 * @param {BlockJson & { kind: 'block' }} b
 * @param {number} nowMs the server's clock when it answered
 */
function activeCard(b, nowMs) {
  const start = Date.parse(b.start);
  const end = Date.parse(b.end);
  const rate = b.burnRate;
  const perHour = rate === null || rate.usdPerMinute === null ? null : rate.usdPerMinute * 60;
  return h(
    'div',
    { class: 'block-active' },
    h(
      'p',
      null,
      h('strong', null, 'Running'),
      ` since ${localTime(b.start)} · ends ${localTime(b.end)} · `,
      h('strong', { class: 'time-left' }, `${duration(end - nowMs)} left`),
    ),
    fractionBar((nowMs - start) / (end - start), 'block-elapsed', null),
    h(
      'dl',
      { class: 'block-figures' },
      h('dt', null, 'So far'),
      h('dd', null, `${costText(b)} · ${tokens(b.totalTokens)} tokens`),
      h('dt', null, 'Burn rate'),
      h(
        'dd',
        null,
        rate === null
          ? UNKNOWN
          : `${perHour === null ? NO_PRICE : `${usd(perHour)}/h`} · ${tokens(Math.round(rate.tokensPerMinute))} tokens/min`,
      ),
      h('dt', null, 'Projected'),
      h(
        'dd',
        null,
        b.projection === null
          ? UNKNOWN
          : `${b.projection.usd === null ? NO_PRICE : usd(b.projection.usd)} · ${tokens(b.projection.totalTokens)} tokens by ${localTime(b.end)}`,
      ),
    ),
  );
}

/**
 * The blocks card: the running block, then the finished ones, newest first.
 * @param {SpendAnswer} a
 */
export function blocksCard(a) {
  const nowMs = Date.parse(a.generatedAt);
  /** @type {(BlockJson & { kind: 'block' })[]} */
  const finished = [];
  for (const b of a.blocks) if (b.kind === 'block' && !b.active) finished.unshift(b);
  const running = a.active?.kind === 'block' ? a.active : null;
  return [
    h('h2', null, 'Claude Code blocks'),
    running
      ? activeCard(running, nowMs)
      : h('p', { class: 'calm' }, 'No 5-hour block is running; the next Claude Code request starts one.'),
    finished.length === 0
      ? null
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'plain blocks' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', null, 'Started'),
                h('th', { class: 'num' }, 'Active'),
                h('th', { class: 'num' }, 'Cost'),
                h('th', { class: 'num' }, 'Tokens'),
                h('th', null, 'Models'),
              ),
            ),
            h(
              'tbody',
              null,
              finished.map((b) =>
                h(
                  'tr',
                  null,
                  h('td', null, localTime(b.start)),
                  h('td', { class: 'num' }, duration(Date.parse(b.lastRequest) - Date.parse(b.firstRequest))),
                  h('td', { class: 'num' }, costText(b)),
                  h('td', { class: 'num' }, tokens(b.totalTokens)),
                  h('td', null, b.models.map((m) => clean(shortModel(m))).join(', ')),
                ),
              ),
            ),
          ),
        ),
  ];
}

/**
 * A bar as wide as its box, filled to `fraction` (full past 1), with a tick at `tick` if given.
 * @param {number} fraction
 * @param {string} cls
 * @param {number | null} tick
 */
function fractionBar(fraction, cls, tick) {
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  return s(
    'svg',
    { viewBox: '0 0 100 8', class: `fraction ${cls}`, 'aria-hidden': 'true', preserveAspectRatio: 'none' },
    s('rect', { x: 0, y: 0, width: 100, height: 8, class: 'fraction-bg' }),
    s('rect', { x: 0, y: 0, width: 100 * f, height: 8, class: 'fraction-fg' }),
    tick === null
      ? null
      : s('line', { x1: 100 * tick, x2: 100 * tick, y1: 0, y2: 8, class: 'fraction-tick' }),
  );
}

/**
 * A budget's share of its limit, full at 100% and past it; a tick where it reads as near (80%).
 * @param {BudgetJson} b
 */
const shareBar = (b) => fractionBar(b.share ?? 0, `share level-${b.level}`, NEAR_SHARE);

/**
 * One budget: its name and days, spent of its limit, the bar, the share and its level.
 * @param {BudgetJson} b
 */
function budgetRow(b) {
  const days = b.from === b.to ? b.from : `${b.from} → ${b.to}`;
  const scope = [b.harness ? harness(b.harness) : null, b.project].filter(Boolean).join(' · ');
  return h(
    'li',
    // With nothing priced, `ok` is only what is known: the level is dimmed, as `cctop budget` does.
    { class: ['budget', `level-${b.level}`, b.spentUsd === null && 'unpriced'], dataset: { level: b.level } },
    h(
      'div',
      { class: 'budget-head' },
      h('strong', null, clean(b.name)),
      h('span', { class: 'dim' }, ` ${b.period} · ${days}${scope ? ` · ${clean(scope)}` : ''}`),
    ),
    h(
      'div',
      { class: 'budget-figures' },
      `${b.spentUsd === null ? NO_PRICE : usd(b.spentUsd)} of ${usd(b.limitUsd)}`,
    ),
    shareBar(b),
    h('span', { class: 'budget-share' }, percent(b.spentUsd, b.limitUsd)),
    h('span', { class: 'budget-level' }, b.level),
  );
}

/**
 * The budgets card: every budget, or why there are none, and what is wrong with the config file.
 * @param {SpendAnswer} a
 */
export function budgetsCard(a) {
  /** @type {Child} */
  let body;
  if (a.configPath === null)
    body = h(
      'p',
      { class: 'calm' },
      'This server does not read the config file, so it shows no budgets; cctop budget does.',
    );
  else if (a.budgets.length === 0)
    body = h(
      'p',
      { class: 'calm' },
      `No budgets are set. Add a [[budget]] to ${a.configPath} (docs/config.md shows how).`,
    );
  else body = h('ul', { class: 'budgets' }, a.budgets.map(budgetRow));
  return [h('h2', null, 'Budgets'), body, a.configProblems.map((p) => h('p', { class: 'error' }, p))];
}
