// @ts-check
// Talking to cctop serve: the event stream that keeps the page's copy of the session document
// current (the one-off JSON reads are in api.js). The stream opens with the whole document, then sends only what each
// update changed; `Follower` (shared-delta.js, the same code the server's tests run) merges them and
// fetches the whole document again when it sees it missed one.
//
// The stream reopens by itself: EventSource retries a dropped connection, and a stream that has been
// silent for more than two pings (a phone that slept, a proxy that stalled) is closed and opened
// again. When the stream cannot be had at all, the document is polled instead.
//
// Beside the document, the stream carries where the budgets stand (`budgets`) and alerts as they fire
// (`alert`); whoever shows them subscribes in notices.js.
//
// What the server sends is read as `unknown` and checked for its shape before the page trusts it.

/** @import { SessionDocument } from '../src/model/document.js' */
/** @import { AlertFrame, BudgetLine, ChangesFrame, WholeFrame } from './shared-delta.js' */

import { AuthError, getInfo, isObject } from './api.js';
import { announce, setBudgets } from './notices.js';
import { Follower } from './shared-delta.js';

/** The server pings a quiet stream this often (PING_MS in src/views/serve/limits.ts). */
const PING_MS = 15_000;
/** Silence longer than this means the stream is dead even if the socket says otherwise. */
const SILENT_MS = 2 * PING_MS + 5_000;
/** How often the document is polled while the stream cannot be had. */
const POLL_MS = 5_000;
/** How long a stream closed by an HTTP error waits before trying again, polling meanwhile. */
const REOPEN_MS = 10_000;
/** How long to wait before reopening when even `/api/info` could not be reached. */
const UNREACHABLE_MS = 5_000;

/**
 * @param {unknown} v
 * @returns {v is SessionDocument}
 */
const isDocument = (v) => isObject(v) && Array.isArray(v.sessions) && Array.isArray(v.problems);

/**
 * `/api/sessions` answered 200: the document, and where it stands among the updates.
 * @param {Response} res
 * @returns {Promise<WholeFrame | null>}
 */
async function wholeOf(res) {
  const run = res.headers.get('Cctop-Run');
  const seq = Number(res.headers.get('Cctop-Seq'));
  const document = /** @type {unknown} */ (await res.json());
  if (run === null || !Number.isSafeInteger(seq) || !isDocument(document)) return null;
  return { run, seq, document };
}

/**
 * An event's data, or null when it is not JSON at all.
 * @param {string} data
 * @returns {unknown}
 */
function parseJson(data) {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

/**
 * The stream's whole document.
 * @param {string} data
 * @returns {WholeFrame | null}
 */
function parseWhole(data) {
  const v = parseJson(data);
  if (!isObject(v) || typeof v.run !== 'string' || typeof v.seq !== 'number' || !isDocument(v.document))
    return null;
  return { run: v.run, seq: v.seq, document: v.document };
}

/**
 * @param {unknown} v
 * @returns {v is ChangesFrame}
 */
const isChanges = (v) =>
  isObject(v) &&
  typeof v.run === 'string' &&
  typeof v.seq === 'number' &&
  (v.kind === 'all' ||
    (v.kind === 'some' &&
      Array.isArray(v.changed) &&
      Array.isArray(v.removed) &&
      typeof v.generatedAt === 'string' &&
      (v.problems === null || Array.isArray(v.problems)) &&
      (v.collisions === null || Array.isArray(v.collisions)) &&
      (v.hosts === undefined || v.hosts === null || Array.isArray(v.hosts))));

/**
 * One update from the stream.
 * @param {string} data
 * @returns {ChangesFrame | null}
 */
function parseChanges(data) {
  const v = parseJson(data);
  return isChanges(v) ? v : null;
}

/**
 * @param {unknown} v
 * @returns {v is BudgetLine}
 */
const isBudget = (v) =>
  isObject(v) &&
  typeof v.name === 'string' &&
  typeof v.period === 'string' &&
  typeof v.from === 'string' &&
  typeof v.to === 'string' &&
  typeof v.limitUsd === 'number' &&
  (v.spentUsd === null || typeof v.spentUsd === 'number') &&
  (v.share === null || typeof v.share === 'number') &&
  (v.level === 'ok' || v.level === 'near' || v.level === 'over');

/**
 * @param {unknown} v
 * @returns {v is AlertFrame}
 */
const isAlert = (v) =>
  isObject(v) &&
  typeof v.kind === 'string' &&
  typeof v.title === 'string' &&
  typeof v.body === 'string' &&
  typeof v.tag === 'string' &&
  (v.session === null || (isObject(v.session) && typeof v.session.id === 'string'));

/** @param {string} data */
function receiveBudgets(data) {
  const v = parseJson(data);
  if (!isObject(v) || !Array.isArray(v.budgets)) return;
  setBudgets(v.budgets.filter(isBudget));
}

/**
 * How far a build is (`{"text": "reading transcripts: …"}`), shown in the header until it ends
 * (`{"text": null}`). Set as text, never as markup.
 * @param {string} data
 */
function receiveProgress(data) {
  const v = parseJson(data);
  const el = document.getElementById('progress');
  if (!isObject(v) || el === null) return;
  const text = typeof v.text === 'string' ? v.text : null;
  el.textContent = text ?? '';
  el.hidden = text === null;
}

/** @param {string} data */
function receiveAlert(data) {
  const v = parseJson(data);
  if (isAlert(v)) announce(v);
}

/** @typedef {'live' | 'reconnecting' | 'polling' | 'denied'} LinkStatus */

/**
 * The whole document, for a page that missed an update; null when it could not be had.
 * @param {(status: LinkStatus) => void} onStatus
 * @returns {Promise<WholeFrame | null>}
 */
async function fetchWhole(onStatus) {
  try {
    const res = await fetch('/api/sessions', { credentials: 'same-origin' });
    if (res.status === 401) onStatus('denied');
    return res.status === 200 ? await wholeOf(res) : null;
  } catch {
    return null;
  }
}

/** The event stream, its watchdog, and the polling that stands in while the stream cannot be had. */
class Link {
  /**
   * @param {Follower} follower
   * @param {(status: LinkStatus) => void} onStatus
   */
  constructor(follower, onStatus) {
    this.follower = follower;
    this.onStatus = onStatus;
    /** @type {EventSource | null} */
    this.es = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.watchdog = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.poller = undefined;
    /** @type {string | null} the ETag of the last document polled */
    this.lastTag = null;
  }

  /** Something arrived: the stream is alive for another `SILENT_MS`. */
  arm() {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.reopen(), SILENT_MS);
  }

  async poll() {
    try {
      /** @type {Record<string, string>} */
      const headers = this.lastTag ? { 'If-None-Match': this.lastTag } : {};
      const res = await fetch('/api/sessions', { credentials: 'same-origin', headers });
      if (res.status === 401) {
        this.onStatus('denied');
        return;
      }
      if (res.status === 200) {
        this.lastTag = res.headers.get('ETag');
        const whole = await wholeOf(res);
        if (whole !== null) this.follower.whole(whole);
      }
    } catch {
      // the next poll tries again
    }
  }

  startPolling() {
    if (this.poller) return;
    this.onStatus('polling');
    this.poll();
    this.poller = setInterval(() => this.poll(), POLL_MS);
  }

  stopPolling() {
    clearInterval(this.poller);
    this.poller = undefined;
  }

  open() {
    const source = new EventSource('/api/events');
    this.es = source;
    source.addEventListener('open', () => {
      this.arm();
      this.stopPolling();
      this.onStatus('live');
    });
    source.addEventListener('sessions', (e) => {
      this.arm();
      const whole = parseWhole(e.data);
      if (whole !== null) this.follower.whole(whole);
      else void this.follower.catchUp();
    });
    source.addEventListener('changes', (e) => {
      this.arm();
      const frame = parseChanges(e.data);
      if (frame !== null) this.follower.changes(frame);
      else void this.follower.catchUp();
    });
    source.addEventListener('budgets', (e) => {
      this.arm();
      receiveBudgets(e.data);
    });
    source.addEventListener('alert', (e) => {
      this.arm();
      receiveAlert(e.data);
    });
    source.addEventListener('progress', (e) => {
      this.arm();
      receiveProgress(e.data);
    });
    source.addEventListener('ping', () => this.arm());
    source.addEventListener('error', () => this.broken(source));
  }

  /**
   * The stream failed: EventSource retries by itself unless it closed for good (an HTTP error);
   * then find out whether the link itself is the problem.
   * @param {EventSource} source
   */
  async broken(source) {
    if (source.readyState !== EventSource.CLOSED) {
      this.onStatus('reconnecting');
      return;
    }
    try {
      await getInfo();
      this.startPolling();
      setTimeout(() => this.reopen(), REOPEN_MS);
    } catch (err) {
      if (err instanceof AuthError) this.onStatus('denied');
      else setTimeout(() => this.reopen(), UNREACHABLE_MS);
    }
  }

  reopen() {
    this.es?.close();
    this.open();
  }

  /** Back from a sleeping tab: do not wait for the watchdog to notice a dead stream. */
  woke() {
    if (this.es?.readyState === EventSource.CLOSED) this.reopen();
  }
}

/**
 * Keep `onDoc` fed with the newest session document; `onStatus` hears how the link stands.
 * @param {(doc: SessionDocument) => void} onDoc
 * @param {(status: LinkStatus) => void} onStatus
 */
export function follow(onDoc, onStatus) {
  const link = new Link(new Follower(() => fetchWhole(onStatus), onDoc), onStatus);
  link.open();
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') link.woke();
  });
}
