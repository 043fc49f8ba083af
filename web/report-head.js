// @ts-check
// The head of a session's page: its title, state, harness, id and place, and the figures that
// matter (cost, tokens, context, tools, duration, models), from one `SessionReport`. Drawing only:
// the cards under it are report.js's, fetching the report is session.js's.

/** @import { SessionReport } from '../src/report/types.js' */
/** @import { Child } from './dom.js' */

import { h } from './dom.js';
import {
  basename,
  clean,
  counted,
  duration,
  harness,
  localTime,
  ms,
  percent,
  shortModel,
  tokens,
  totalTokens,
  UNKNOWN,
  usd,
} from './format.js';

/**
 * @param {string} title
 * @param {string} value
 * @param {string} note
 */
function statCard(title, value, note) {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-title' }, title),
    h('div', { class: 'stat-value' }, value),
    note ? h('div', { class: 'stat-note' }, note) : null,
  );
}

/**
 * The figures under the title: cost, tokens, context, tools, duration, models.
 * @param {SessionReport['session']} s
 */
function figures(s) {
  const started = ms(s.startedAt);
  const last = ms(s.lastActiveAt);
  const costNote = s.cost.included
    ? `${usd(s.cost.usd)} at retail`
    : s.cost.unpriced.length > 0
      ? `no price: ${s.cost.unpriced.join(', ')}`
      : (s.cost.source ?? '');
  return h(
    'div',
    { class: 'summary' },
    statCard('Cost', usd(s.cost.usd, s.cost.included), costNote),
    statCard('Tokens', tokens(totalTokens(s.tokens)), `${s.requests} requests`),
    statCard(
      'Context',
      percent(s.context.used, s.context.compactAt),
      `${tokens(s.context.used)} of ${tokens(s.context.compactAt)}${s.compactions ? ` · ${counted(s.compactions, 'compaction')}` : ''}`,
    ),
    statCard(
      'Tools',
      String(s.tools.calls),
      s.tools.failed === null ? 'outcomes not recorded' : `${s.tools.failed} failed`,
    ),
    statCard(
      'Duration',
      started !== null && last !== null ? duration(last - started) : UNKNOWN,
      s.startedAt ? `from ${localTime(s.startedAt)}` : '',
    ),
    statCard(
      'Models',
      s.models.map(shortModel).join(', ') || UNKNOWN,
      s.reasoningEffort ? `effort ${s.reasoningEffort}` : '',
    ),
  );
}

/** Where a state came from, in a word beside it and in a sentence on hover. @type {Record<string, string>} */
const SOURCE_WORD = {
  hook: 'by hook',
  registry: 'by registry',
  driven: 'by its driver',
  inferred: 'inferred',
};
/** @type {Record<string, string>} */
const SOURCE_TITLE = {
  hook: "The agent's hooks reported this state.",
  registry: "The agent's own list of running sessions reports this state.",
  driven: 'The program driving this session through cctop/drive reports this state.',
  inferred: 'cctop inferred this state from the transcript and the process table (no hook has reported it).',
};

/**
 * The session's head: its title, state, harness, id and place, and its figures.
 * @param {SessionReport} r
 * @returns {Child[]}
 */
export function sessionHead(r) {
  const s = r.session;
  return [
    h('h1', { class: `state-${s.state}` }, s.title ? clean(s.title) : (basename(s.project) ?? s.id)),
    h(
      'p',
      { class: 'meta' },
      h(
        'span',
        { class: `pill state-${s.state}`, title: SOURCE_TITLE[s.stateSource] ?? '' },
        s.stateDetail && s.state !== 'idle' ? `${s.state}: ${clean(s.stateDetail)}` : s.state,
      ),
      h('span', { class: 'state-source' }, ` ${SOURCE_WORD[s.stateSource] ?? ''}`),
      ` ${harness(s.provider)} · `,
      h('code', null, s.id),
      // Another machine's path: prefixed with the machine, as `ssh` and `scp` name one.
      s.project ? ` · ${s.host ? `${clean(s.host)}:` : ''}${s.project}` : '',
      s.branch ? ` @ ${clean(s.branch)}` : '',
      s.deleted ? ' · transcript deleted' : '',
    ),
    figures(s),
  ];
}
