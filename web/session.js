// One session: its report (cost over time, context, failures, slow and heavy calls, files, diffs,
// subagents) and its conversation, paged back 200 turns at a time, kept current while it runs.
//
// Live updates are cheap on both ends: the page asks again only when the session document says this
// session moved, and sends the conversation's stamp back so an unchanged transcript costs the
// server a few stats and the page nothing.

import { barChart, lineChart, meter } from './charts.js';
import { fill, h, navLink, sessionHref } from './dom.js';
import {
  basename,
  clean,
  duration,
  harness,
  label,
  localTime,
  ms,
  msText,
  percent,
  shortModel,
  tokens,
  totalTokens,
  UNKNOWN,
  usd,
} from './format.js';
import { AuthError, getJson, HttpError } from './live.js';

/** Pages fetched in a row to reach a `#turn-N` link (200 turns each). */
const MAX_PAGES_TO_LINK = 50;

const enc = encodeURIComponent;

function section(title, id, ...body) {
  return h('section', { class: 'card', id }, h('h2', null, title), ...body);
}

function table(headers, rows, cls = '') {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: `plain ${cls}` },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headers.map((x) => h('th', { class: x.num ? 'num' : null }, x.title ?? x)),
        ),
      ),
      h('tbody', null, rows),
    ),
  );
}

const td = (v, num = false, cls = null) => h('td', { class: [num && 'num', cls] }, v);

function fmtHour(iso) {
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: '2-digit' });
}

/** Spend per hour when the session spans a few days at most, per day otherwise; gaps filled with zeros. */
function spendBars(r) {
  const hours = r.cost.byHour;
  const priced = hours.some((x) => x.usd !== null);
  const value = (x) => (priced ? (x.usd ?? 0) : x.tokens);
  const fmt = priced ? (v) => usd(v) : (v) => tokens(Math.round(v));
  if (hours.length === 0) return null;
  const first = Date.parse(hours[0].hour);
  const last = Date.parse(hours[hours.length - 1].hour);
  const span = Math.round((last - first) / 3_600_000) + 1;
  if (span <= 96) {
    const at = new Map(hours.map((x) => [Date.parse(x.hour), x]));
    const bars = [];
    for (let i = 0; i < span; i++) {
      const t = first + i * 3_600_000;
      const x = at.get(t);
      const v = x ? value(x) : 0;
      bars.push({ label: fmtHour(t), value: v, tip: `${new Date(t).toLocaleString()}: ${fmt(v)}` });
    }
    return {
      title: priced ? 'Cost by hour' : 'Tokens by hour (no price known)',
      chart: barChart(bars, { fmt }),
    };
  }
  const bars = r.cost.byDay.map((d) => ({
    label: d.day.slice(5),
    value: priced ? (d.usd ?? 0) : d.tokens,
    tip: `${d.day}: ${priced ? usd(d.usd) : tokens(d.tokens)}`,
  }));
  return { title: priced ? 'Cost by day' : 'Tokens by day (no price known)', chart: barChart(bars, { fmt }) };
}

function contextChart(r) {
  const series = r.context.series;
  if (series.length === 0) return null;
  const timed = series.every((p) => p.at !== null);
  const points = series.map((p, i) => ({ t: timed ? Date.parse(p.at) : i, y: p.prompt }));
  const rules = [];
  if (r.context.compactAt)
    rules.push({
      y: r.context.compactAt,
      label: `compacts at ${tokens(r.context.compactAt)}`,
      class: 'compact',
    });
  if (r.context.window && r.context.window !== r.context.compactAt)
    rules.push({ y: r.context.window, label: `window ${tokens(r.context.window)}`, class: 'window' });
  const marks = timed
    ? r.context.compactions
        .filter((c) => c !== null)
        .map((c) => ({ t: Date.parse(c), label: `compacted ${localTime(c)}` }))
    : [];
  return lineChart(points, {
    fmt: (v) => tokens(Math.round(v)),
    tfmt: (t) => (timed ? localTime(new Date(t).toISOString()) : `#${t}`),
    rules,
    marks,
  });
}

function statCard(title, value, note) {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-title' }, title),
    h('div', { class: 'stat-value' }, value),
    note ? h('div', { class: 'stat-note' }, note) : null,
  );
}

function diffBlock(lines) {
  return h(
    'pre',
    { class: 'diff' },
    lines.map((l) =>
      h('span', { class: l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'ctx' }, `${l}\n`),
    ),
  );
}

function toolEl(t) {
  const running = t.result === null;
  const status = running ? '…' : t.failed ? '✖' : '✓';
  return h(
    'details',
    { class: ['call', t.failed && 'failed', running && 'running'] },
    h(
      'summary',
      null,
      h(
        'span',
        { class: 'call-status', title: running ? 'no result yet' : t.failed ? 'failed' : 'ok' },
        status,
      ),
      h('span', { class: 'call-name' }, t.name),
      h('span', { class: 'call-detail' }, clean(t.detail)),
      t.added || t.removed ? h('span', { class: 'call-lines' }, `+${t.added} −${t.removed}`) : null,
    ),
    t.full ? h('pre', { class: 'arg' }, t.full) : null,
    t.diff.length > 0 ? diffBlock(t.diff) : null,
    running
      ? h('p', { class: 'dim' }, 'No result yet.')
      : h('pre', { class: 'result' }, t.result || '(empty result)'),
  );
}

/** What in a session's row says its transcript moved. */
const signature = (s) =>
  [s.lastActiveAt, s.state, s.requests, s.tools.calls, totalTokens(s.tokens), s.title].join('|');

const WHO = { user: 'User', assistant: 'Agent', system: 'System' };

function turnEl(t, base) {
  const who =
    t.kind === 'compaction'
      ? 'Context compacted'
      : t.kind === 'reasoning'
        ? 'Thinking'
        : (WHO[t.role] ?? t.role);
  return h(
    'article',
    { class: ['turn', `role-${t.role}`, `kind-${t.kind}`], id: `turn-${t.seq}` },
    h(
      'header',
      null,
      h('span', { class: 'who' }, who),
      t.ts ? h('time', { datetime: t.ts, title: t.ts }, localTime(t.ts)) : null,
      h('a', { class: 'anchor', href: `${base}#turn-${t.seq}`, title: 'link to this turn' }, `#${t.seq}`),
    ),
    t.text ? h('div', { class: 'text' }, t.text) : null,
    t.clipped ? h('p', { class: 'dim' }, '… cut here; the transcript has the rest') : null,
    t.tools.length > 0 ? h('div', { class: 'calls' }, t.tools.map(toolEl)) : null,
  );
}

export class SessionView {
  constructor(id, agent, navigate) {
    this.id = id;
    this.agent = agent;
    this.navigate = navigate;
    this.session = null;
    this.report = null;
    this.sig = null;
    this.stamp = null;
    this.turns = new Map();
    this.earlier = 0;
    this.supported = true;
    this.busy = false;
    this.again = false;
    this.gone = false;

    this.header = h('div', { class: 'session-head' }, h('p', { class: 'loading' }, 'Loading the session…'));
    this.reportEl = h('div', { class: 'report' });
    this.chatHead = h('div', { class: 'chat-head' });
    this.list = h('div', { class: 'turns' });
    this.follow = h('input', { type: 'checkbox', checked: true });
    this.el = h(
      'div',
      { class: 'session' },
      h('nav', { class: 'crumbs' }, navLink('/', null, '← All sessions')),
      this.header,
      h(
        'div',
        { class: 'columns' },
        h(
          'section',
          { class: 'chat card', id: 'conversation' },
          h(
            'div',
            { class: 'chat-title' },
            h('h2', null, agent ? `Subagent ${agent}` : 'Conversation'),
            h(
              'span',
              { class: 'chat-tools' },
              h(
                'a',
                {
                  href: `/api/chat/${enc(id)}/markdown${agent ? `?agent=${enc(agent)}` : ''}`,
                  download: '',
                  title: 'the turns cctop keeps (the newest 200), as Markdown',
                },
                'Markdown',
              ),
              h('label', { class: 'switch' }, this.follow, ' Follow'),
            ),
          ),
          this.chatHead,
          this.list,
        ),
        this.reportEl,
      ),
    );
    this.load();
  }

  get base() {
    const id = this.session?.id ?? this.id;
    return sessionHref(id, this.agent);
  }

  chatUrl(extra) {
    const p = new URLSearchParams();
    if (this.agent) p.set('agent', this.agent);
    for (const [k, v] of Object.entries(extra)) if (v !== null && v !== undefined) p.set(k, String(v));
    const qs = p.toString();
    return `/api/chat/${enc(this.session?.id ?? this.id)}${qs ? `?${qs}` : ''}`;
  }

  async load() {
    try {
      const [report, chat] = await Promise.all([
        getJson(`/api/report/${enc(this.id)}`),
        getJson(this.chatUrl({})),
      ]);
      this.session = report.session;
      // What the page was built from: a document that differs from it (even the first) means fetch again.
      this.sig = signature(report.session);
      if (this.session.id !== this.id) {
        // A prefix in the address: show the full id from now on.
        history.replaceState(
          history.state,
          '',
          `${sessionHref(this.session.id, this.agent)}${location.hash}`,
        );
      }
      this.drawReport(report);
      this.mergeNewest(chat);
      await this.reachHash();
    } catch (err) {
      this.fail(err);
    }
  }

  fail(err) {
    this.gone = true;
    if (err instanceof AuthError) {
      fill(
        this.header,
        h('p', { class: 'error' }, 'This page needs the link cctop serve printed when it started.'),
      );
      return;
    }
    if (err instanceof HttpError && err.status === 409 && err.body?.candidates) {
      fill(
        this.header,
        h('p', null, err.message),
        h(
          'ul',
          { class: 'candidates' },
          err.body.candidates.map((c) =>
            h('li', null, navLink(sessionHref(c.id), null, `${c.id}  ${label(c)}`)),
          ),
        ),
      );
      this.el.querySelector('.columns')?.remove();
      return;
    }
    fill(this.header, h('p', { class: 'error' }, err.message));
    this.el.querySelector('.columns')?.remove();
  }

  /** A new session document: if this session moved, fetch what changed. */
  update(doc) {
    // Until the first load has finished there is nothing to bring up to date.
    if (this.gone || !this.session) return;
    const key = this.session?.id ?? this.id;
    const s = doc.sessions.find((x) => x.id === key) ?? doc.sessions.find((x) => x.id.startsWith(key));
    if (!s) return;
    const sig = signature(s);
    if (this.sig !== null && sig !== this.sig) this.refresh();
    this.sig = sig;
  }

  async refresh() {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      const chat = await getJson(this.chatUrl({ since: this.stamp }));
      if (!chat.unchanged) this.mergeNewest(chat);
      const report = await getJson(`/api/report/${enc(this.session.id)}`);
      this.drawReport(report);
    } catch (err) {
      if (err instanceof AuthError) this.fail(err);
    } finally {
      this.busy = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }

  /** The conversation scrolls in its own pane beside the report on a wide screen, with the page on a narrow one. */
  get pane() {
    return getComputedStyle(this.list).overflowY === 'auto';
  }

  /** Whether the newest turn is in view (the reader is following along). */
  nearBottom() {
    if (this.pane) return this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 120;
    const last = this.list.lastElementChild;
    return last !== null && last.getBoundingClientRect().bottom <= window.innerHeight + 120;
  }

  toBottom() {
    if (this.pane) this.list.scrollTop = this.list.scrollHeight;
    else this.list.lastElementChild?.scrollIntoView({ block: 'end' });
  }

  /** Scroll by `dy`, in the pane or the page. */
  scrollBy(dy) {
    if (this.pane) this.list.scrollTop += dy;
    else window.scrollBy(0, dy);
  }

  /** The newest window: replaces what it covers, keeps older pages already loaded. */
  mergeNewest(chat) {
    // On first load the pane starts at the newest turn; later, only a reader already there is kept there.
    const first = this.stamp === null;
    const stick = this.follow.checked && (first ? this.pane && !location.hash : this.nearBottom());
    this.stamp = chat.stamp;
    this.supported = chat.supported;
    if (!chat.supported) {
      fill(this.list, h('p', { class: 'note' }, chat.note ?? 'cctop cannot read this conversation.'));
      this.drawChatHead();
      return;
    }
    const start = chat.earlier;
    const loadedMax = Math.max(-1, ...this.turns.keys());
    if (this.turns.size === 0 || loadedMax < start - 1) {
      // Nothing loaded, or more new turns than one window: start again from this window.
      this.turns.clear();
      this.earlier = start;
    }
    for (const seq of [...this.turns.keys()]) if (seq >= start) this.turns.delete(seq);
    for (const t of chat.turns) this.turns.set(t.seq, { turn: t, el: null });
    this.earlier = Math.min(this.earlier, start);
    this.drawTurns();
    if (stick) this.toBottom();
  }

  async older() {
    const chat = await getJson(this.chatUrl({ before: this.earlier }));
    if (!chat.supported) return;
    for (const t of chat.turns) if (!this.turns.has(t.seq)) this.turns.set(t.seq, { turn: t, el: null });
    this.earlier = chat.earlier;
    const anchor = this.list.firstElementChild;
    const top = anchor?.getBoundingClientRect().top ?? 0;
    this.drawTurns();
    // Keep what was on screen where it was.
    if (anchor) this.scrollBy(anchor.getBoundingClientRect().top - top);
  }

  drawChatHead() {
    const count = this.turns.size;
    fill(
      this.chatHead,
      this.supported
        ? h(
            'p',
            { class: 'dim' },
            `${count} turn${count === 1 ? '' : 's'} shown`,
            this.earlier > 0 ? ` · ${this.earlier} earlier ` : '',
            this.earlier > 0
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'older',
                    onclick: async (e) => {
                      e.target.disabled = true;
                      try {
                        await this.older();
                      } finally {
                        e.target.disabled = false;
                      }
                    },
                  },
                  'Load older turns',
                )
              : null,
          )
        : null,
    );
  }

  drawTurns() {
    const seqs = [...this.turns.keys()].sort((a, b) => a - b);
    const base = this.base;
    const els = seqs.map((seq) => {
      const x = this.turns.get(seq);
      if (x.el === null) x.el = turnEl(x.turn, base);
      return x.el;
    });
    // Drop what is gone, then put each element in place (moving only the ones out of order).
    const keep = new Set(els);
    for (const child of [...this.list.children]) if (!keep.has(child)) child.remove();
    els.forEach((el, i) => {
      if (this.list.children[i] !== el) this.list.insertBefore(el, this.list.children[i] ?? null);
    });
    if (els.length === 0) fill(this.list, h('p', { class: 'note' }, 'No turns yet.'));
    this.drawChatHead();
    this.drawDiffs();
  }

  /** `#turn-N`: page back until turn N is loaded, then show it. */
  async reachHash() {
    const m = /^#turn-(\d+)$/.exec(location.hash);
    if (!m || !this.supported) return;
    const seq = Number(m[1]);
    for (
      let i = 0;
      i < MAX_PAGES_TO_LINK && !this.turns.has(seq) && this.earlier > 0 && seq < this.earlier;
      i++
    )
      await this.older();
    const el = document.getElementById(`turn-${seq}`);
    if (el) {
      el.classList.add('target');
      el.scrollIntoView({ block: 'start' });
    }
  }

  drawHeader(r) {
    const s = r.session;
    const started = ms(s.startedAt);
    const last = ms(s.lastActiveAt);
    fill(
      this.header,
      h(
        'h1',
        { class: `state-${s.state}` },

        s.title ? clean(s.title) : (basename(s.project) ?? s.id),
      ),
      h(
        'p',
        { class: 'meta' },
        h(
          'span',
          { class: `pill state-${s.state}` },
          s.stateDetail && s.state !== 'idle' ? `${s.state}: ${clean(s.stateDetail)}` : s.state,
        ),
        ` ${harness(s.provider)} · `,
        h('code', null, s.id),
        s.project ? ` · ${s.project}` : '',
        s.branch ? ` @ ${clean(s.branch)}` : '',
        s.deleted ? ' · transcript deleted' : '',
      ),
      h(
        'div',
        { class: 'summary' },
        statCard(
          'Cost',
          usd(s.cost.usd, s.cost.included),
          s.cost.included
            ? `${usd(s.cost.usd)} at retail`
            : s.cost.unpriced.length > 0
              ? `no price: ${s.cost.unpriced.join(', ')}`
              : (s.cost.source ?? ''),
        ),
        statCard('Tokens', tokens(totalTokens(s.tokens)), `${s.requests} requests`),
        statCard(
          'Context',
          percent(s.context.used, s.context.compactAt),
          `${tokens(s.context.used)} of ${tokens(s.context.compactAt)}${s.compactions ? ` · ${s.compactions} compactions` : ''}`,
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
      ),
    );
    document.title = `${label(s)} · cctop`;
  }

  drawReport(r) {
    this.report = r;
    this.drawHeader(r);
    const parts = [];

    const spend = spendBars(r);
    const models = r.cost.byModel;
    const topUsd = Math.max(0, ...models.map((m) => m.usd ?? 0));
    parts.push(
      section(
        'Cost',
        'cost',
        spend
          ? h('figure', null, spend.chart, h('figcaption', null, spend.title))
          : h('p', { class: 'dim' }, 'No spend recorded.'),
        models.length > 0
          ? table(
              [
                'Model',
                { title: 'Requests', num: true },
                { title: 'Tokens', num: true },
                { title: 'Cost', num: true },
                '',
              ],
              models.map((m) =>
                h(
                  'tr',
                  null,
                  td(shortModel(m.model)),
                  td(String(m.requests), true),
                  td(tokens(totalTokens(m.tokens)), true),
                  td(usd(m.usd, r.session.cost.included && m.usd !== null), true),
                  h('td', null, topUsd > 0 && m.usd !== null ? meter(m.usd / topUsd) : null),
                ),
              ),
            )
          : null,
      ),
    );

    const ctx = contextChart(r);
    parts.push(
      section(
        'Context window',
        'context',
        ctx
          ? h(
              'figure',
              null,
              ctx,
              h(
                'figcaption',
                null,
                `Prompt size per request${r.context.compactions.length ? `; ${r.context.compactions.length} compaction${r.context.compactions.length === 1 ? '' : 's'} marked` : ''}`,
              ),
            )
          : h('p', { class: 'dim' }, 'This harness records no context sizes.'),
      ),
    );

    const t = r.tools;
    parts.push(
      section(
        'Tool failures',
        'failures',
        t.failures.length === 0
          ? h(
              'p',
              { class: 'dim' },
              t.failed === null ? 'This harness does not record tool outcomes.' : 'No failed calls.',
            )
          : table(
              ['Tool', 'Call', { title: 'Times', num: true }, 'Last'],
              t.failures.map((f) =>
                h(
                  'tr',
                  null,
                  td(f.tool),
                  h(
                    'td',
                    { class: 'wrap' },
                    h(
                      'details',
                      null,
                      h('summary', null, clean(f.detail) || clean(f.argument) || '(no argument)'),
                      f.argument ? h('pre', { class: 'arg' }, f.argument) : null,
                      f.samples.map((x) => h('pre', { class: 'result' }, x)),
                    ),
                  ),
                  td(`×${f.count}`, true),
                  td(localTime(f.lastAt)),
                ),
              ),
            ),
      ),
    );

    if (t.byTool.length > 0)
      parts.push(
        section(
          'Tools',
          'tools',
          table(
            ['Tool', { title: 'Calls', num: true }, { title: 'Failed', num: true }],
            t.byTool.map((b) =>
              h(
                'tr',
                null,
                td(b.name),
                td(String(b.calls), true),
                td(t.failed === null ? UNKNOWN : String(b.failed), true),
              ),
            ),
          ),
        ),
      );

    if (t.slowest.length > 0)
      parts.push(
        section(
          'Slowest calls',
          'slowest',
          table(
            ['Tool', 'Call', { title: 'Took', num: true }, 'When'],
            t.slowest.map((x) =>
              h(
                'tr',
                null,
                td(x.tool),
                td(clean(x.detail), false, 'wrap'),
                td(msText(x.ms), true),
                td(localTime(x.at)),
              ),
            ),
          ),
        ),
      );

    if (t.heaviest.length > 0)
      parts.push(
        section(
          'Calls that grew the context most',
          'heaviest',
          table(
            ['Tool', 'Call', { title: 'Growth', num: true }],
            t.heaviest.map((x) =>
              h(
                'tr',
                null,
                td(x.tool),
                td(clean(x.detail), false, 'wrap'),
                td(`${tokens(x.growth)}${x.shared ? ' (shared)' : ''}`, true),
              ),
            ),
          ),
        ),
      );

    parts.push(
      section(
        'Files',
        'files',
        r.files.length === 0
          ? h('p', { class: 'dim' }, 'No files read or written.')
          : table(
              [
                'Path',
                { title: 'Reads', num: true },
                { title: 'Writes', num: true },
                { title: 'Lines', num: true },
              ],
              r.files.map((f) =>
                h(
                  'tr',
                  null,
                  td(f.path, false, 'wrap path'),
                  td(String(f.reads), true),
                  td(String(f.writes), true),
                  td(f.added || f.removed ? `+${f.added} −${f.removed}` : '', true),
                ),
              ),
            ),
      ),
    );

    this.diffs = section('Diffs', 'diffs');
    parts.push(this.diffs);

    if (r.subagents.length > 0)
      parts.push(
        section(
          'Subagents',
          'subagents',
          table(
            [
              'Agent',
              'Task',
              { title: 'Requests', num: true },
              { title: 'Tokens', num: true },
              { title: 'Cost', num: true },
            ],
            r.subagents.map((a) =>
              h(
                'tr',
                null,
                h('td', null, navLink(sessionHref(r.session.id, a.agent), null, a.type ?? a.agent)),
                td(a.title ? clean(a.title) : '', false, 'wrap'),
                td(String(a.requests), true),
                td(tokens(totalTokens(a.tokens)), true),
                td(usd(a.usd, r.session.cost.included && a.usd !== null), true),
              ),
            ),
          ),
        ),
      );
    if (this.agent)
      parts.unshift(
        h(
          'p',
          { class: 'note' },
          'This is a subagent’s conversation; the report is the whole session’s. ',
          navLink(sessionHref(r.session.id), null, 'Back to the main conversation'),
        ),
      );

    fill(this.reportEl, parts);
    this.drawDiffs();
  }

  /** Every edit with a recorded patch among the turns loaded, newest first, each linked to its turn. */
  drawDiffs() {
    if (!this.diffs) return;
    const edits = [];
    for (const seq of [...this.turns.keys()].sort((a, b) => b - a)) {
      for (const t of this.turns.get(seq).turn.tools) if (t.diff.length > 0) edits.push({ seq, t });
    }
    fill(
      this.diffs,
      h('h2', null, 'Diffs'),
      edits.length === 0
        ? h('p', { class: 'dim' }, 'No recorded edits in the turns shown.')
        : edits
            .slice(0, 50)
            .map(({ seq, t }) =>
              h(
                'details',
                { class: 'call' },
                h(
                  'summary',
                  null,
                  h('span', { class: 'call-detail' }, clean(t.detail)),
                  h('span', { class: 'call-lines' }, `+${t.added} −${t.removed}`),
                  ' ',
                  h('a', { href: `${this.base}#turn-${seq}`, class: 'anchor' }, `#${seq}`),
                ),
                diffBlock(t.diff),
              ),
            ),
    );
  }

  destroy() {
    this.gone = true;
  }
}
