// @ts-check
// A session's conversation pane: the turns loaded so far (the newest window, and older pages the
// reader asked for), drawn once each and kept in order; following the newest turn while the reader
// is there; paging back to reach a `#turn-N` link; and the diffs of the edits among the turns.
//
// Every text of a turn (what the user typed, what the agent said, a tool's argument and result) is
// a text node: a transcript is data, whatever markup it holds. Fetching is the session view's; this
// is handed what came back.

/** @import { ToolUse, Turn } from '../src/model/conversation.js' */
/** @import { ChatWindow } from '../src/views/serve/api.js' */
/** @import { Child } from './dom.js' */

import { fill, h } from './dom.js';
import { clean, counted, localTime } from './format.js';

/** Pages fetched in a row to reach a `#turn-N` link (200 turns each). */
const MAX_PAGES_TO_LINK = 50;

/** Recorded edits listed in the diffs card; the newest, since a long session has thousands. */
const MAX_DIFFS_SHOWN = 50;

/** How close to the end (in pixels) still counts as reading the newest turn. */
const NEAR_BOTTOM_PX = 120;

/** @type {Record<Turn['role'], string>} */
const WHO = { user: 'User', assistant: 'Agent', system: 'System' };

/** @param {string[]} lines */
function diffBlock(lines) {
  return h(
    'pre',
    { class: 'diff' },
    lines.map((l) =>
      h('span', { class: l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'ctx' }, `${l}\n`),
    ),
  );
}

/** @param {ToolUse} t */
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

/**
 * @param {Turn} t
 * @param {string} base the session page's address, for the turn's own link
 */
function turnEl(t, base) {
  const who =
    t.kind === 'compaction' ? 'Context compacted' : t.kind === 'reasoning' ? 'Thinking' : WHO[t.role];
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

export class Conversation {
  /**
   * @param {() => string} base the session page's address (it changes once a prefix resolves)
   * @param {(before: number) => Promise<ChatWindow | null>} fetchOlder the page of turns before `before`
   * @param {() => void} onDrawn the turns shown changed (the diffs card follows them)
   */
  constructor(base, fetchOlder, onDrawn) {
    this.base = base;
    this.fetchOlder = fetchOlder;
    this.onDrawn = onDrawn;
    /** @type {Map<number, { turn: Turn, el: HTMLElement | null }>} by turn number */
    this.turns = new Map();
    /** Turns before the oldest loaded. */
    this.earlier = 0;
    this.supported = true;
    /** @type {string | null} the newest window's stamp, sent back as `since=`; null before the first */
    this.stamp = null;
    this.head = h('div', { class: 'chat-head' });
    this.list = h('div', { class: 'turns' });
    this.follow = h('input', { type: 'checkbox', checked: true });
  }

  /** The conversation scrolls in its own pane beside the report on a wide screen, with the page on a narrow one. */
  get pane() {
    return getComputedStyle(this.list).overflowY === 'auto';
  }

  /** Whether the newest turn is in view (the reader is following along). */
  nearBottom() {
    if (this.pane)
      return this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - NEAR_BOTTOM_PX;
    const last = this.list.lastElementChild;
    return last !== null && last.getBoundingClientRect().bottom <= window.innerHeight + NEAR_BOTTOM_PX;
  }

  toBottom() {
    if (this.pane) this.list.scrollTop = this.list.scrollHeight;
    else this.list.lastElementChild?.scrollIntoView({ block: 'end' });
  }

  /**
   * Scroll by `dy`, in the pane or the page.
   * @param {number} dy
   */
  scrollBy(dy) {
    if (this.pane) this.list.scrollTop += dy;
    else window.scrollBy(0, dy);
  }

  /**
   * The newest window: replaces what it covers, keeps older pages already loaded.
   * @param {ChatWindow} chat
   */
  mergeNewest(chat) {
    // On first load the pane starts at the newest turn; later, only a reader already there is kept there.
    const first = this.stamp === null;
    const stick = this.follow.checked && (first ? this.pane && !location.hash : this.nearBottom());
    this.stamp = chat.stamp;
    this.supported = chat.supported;
    if (!chat.supported) {
      fill(this.list, h('p', { class: 'note' }, chat.note ?? 'cctop cannot read this conversation.'));
      this.drawHead();
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
    this.draw();
    if (stick) this.toBottom();
  }

  /** Load the page of turns before the oldest loaded, keeping what is on screen where it was. */
  async older() {
    const chat = await this.fetchOlder(this.earlier);
    if (chat === null || !chat.supported) return;
    for (const t of chat.turns) if (!this.turns.has(t.seq)) this.turns.set(t.seq, { turn: t, el: null });
    this.earlier = chat.earlier;
    const anchor = this.list.firstElementChild;
    const top = anchor?.getBoundingClientRect().top ?? 0;
    this.draw();
    if (anchor) this.scrollBy(anchor.getBoundingClientRect().top - top);
  }

  /** How many turns are shown, and the button for older ones. */
  drawHead() {
    const count = this.turns.size;
    const olderButton = h(
      'button',
      {
        type: 'button',
        class: 'older',
        onclick: async () => {
          olderButton.disabled = true;
          try {
            await this.older();
          } finally {
            olderButton.disabled = false;
          }
        },
      },
      'Load older turns',
    );
    fill(
      this.head,
      this.supported
        ? h(
            'p',
            { class: 'dim' },
            `${counted(count, 'turn')} shown`,
            this.earlier > 0 ? ` · ${this.earlier} earlier ` : '',
            this.earlier > 0 ? olderButton : null,
          )
        : null,
    );
  }

  /** Put every loaded turn in place, drawing only the new ones and moving only those out of order. */
  draw() {
    const base = this.base();
    const els = [...this.turns.keys()]
      .sort((a, b) => a - b)
      .map((seq) => {
        const x = /** @type {{ turn: Turn, el: HTMLElement | null }} */ (this.turns.get(seq));
        x.el ??= turnEl(x.turn, base);
        return x.el;
      });
    /** @type {Set<Element>} */
    const keep = new Set(els);
    for (const child of [...this.list.children]) if (!keep.has(child)) child.remove();
    els.forEach((el, i) => {
      if (this.list.children[i] !== el) this.list.insertBefore(el, this.list.children[i] ?? null);
    });
    if (els.length === 0) fill(this.list, h('p', { class: 'note' }, 'No turns yet.'));
    this.drawHead();
    this.onDrawn();
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

  /**
   * The diffs card: every edit with a recorded patch among the turns loaded, newest first, each
   * linked to its turn.
   * @returns {Child[]}
   */
  diffs() {
    /** @type {{ seq: number, t: ToolUse }[]} */
    const edits = [];
    for (const seq of [...this.turns.keys()].sort((a, b) => b - a)) {
      for (const t of this.turns.get(seq)?.turn.tools ?? []) if (t.diff.length > 0) edits.push({ seq, t });
    }
    const base = this.base();
    return [
      h('h2', null, 'Diffs'),
      edits.length === 0
        ? h('p', { class: 'dim' }, 'No recorded edits in the turns shown.')
        : edits
            .slice(0, MAX_DIFFS_SHOWN)
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
                  h('a', { href: `${base}#turn-${seq}`, class: 'anchor' }, `#${seq}`),
                ),
                diffBlock(t.diff),
              ),
            ),
    ];
  }
}
