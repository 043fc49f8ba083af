/**
 * The live table: `cctop` on a terminal. Wires the live engine, the process table and the deep
 * reader to the screen and the keyboard. Everything it draws comes from `view.ts`.
 */

import { StringDecoder } from 'node:string_decoder';
import { processAnnotator } from '../../live/annotate.js';
import { DeepReader } from '../../live/deep.js';
import { type LiveOptions, LiveSessions } from '../../live/engine.js';
import type { SessionDocument } from '../../model/document.js';
import { totalTokens } from '../../model/usage.js';
import { paint } from '../cli/color.js';
import { hiddenFromEnv } from './columns.js';
import { ESCAPE_WAIT_MS, type Key, KeyDecoder } from './keys.js';
import { notification, WaitWatcher } from './notify.js';
import { Screen } from './screen.js';
import {
  initialView,
  keyOf,
  PANELS,
  RANG_MARK_MS,
  render,
  resumeCommand,
  SORTS,
  type ViewState,
} from './view.js';

export interface TuiOptions {
  live: Omit<LiveOptions, 'annotate'>;
  out: NodeJS.WriteStream;
  input: NodeJS.ReadStream;
  /** Replaces the process table (the demo says which sessions its replay runs). */
  annotate?: LiveOptions['annotate'];
  /** Called once the first picture is up (the demo starts its replay then). */
  onStart?: (live: LiveSessions) => void;
  /** What to say when no session shows (asked once, the first time none does): which filter matched nothing. */
  whenEmpty?: () => Promise<string>;
}

/** How often the screen is redrawn with nothing new (ages tick, marks expire). */
const TICK_MS = 1000;
/** Weight of the newest sample in the token-rate average. */
const RATE_SMOOTHING = 0.4;
/** A status message stays this long. */
const STATUS_MS = 4000;

export async function runTui(o: TuiOptions): Promise<number> {
  const screen = new Screen(o.out, o.input);
  const p = paint(true, o.live.env);
  const live = new LiveSessions({ ...o.live, annotate: o.annotate ?? processAnnotator() });
  const deep = new DeepReader();
  const v: ViewState = initialView(hiddenFromEnv(o.live.env.CCTOP_COLUMNS_HIDE));
  let statusTimer: NodeJS.Timeout | null = null;
  let lastTableRows: ReturnType<typeof render>['tableRows'] = [];
  let tableStart = 2;
  const waits = new WaitWatcher(keyOf);
  const previousTokens = new Map<string, { tokens: number; at: number }>();
  let detailFor: { key: string; version: number } | null = null;

  const draw = () => {
    const { columns, rows } = screen.size();
    const r = render(v, p, columns, rows, Date.now());
    v.top = r.top;
    lastTableRows = r.tableRows;
    tableStart = r.tableStart;
    screen.draw(r.lines);
    loadDetail();
  };

  const say = (text: string) => {
    v.status = text;
    if (statusTimer) clearTimeout(statusTimer);
    statusTimer = setTimeout(() => {
      v.status = null;
      draw();
    }, STATUS_MS);
    draw();
  };

  /** Read the selected session's calls and conversation off the main thread, once per change. */
  const loadDetail = () => {
    const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
    if (!s || v.help) return;
    const key = keyOf(s);
    if (detailFor && detailFor.key === key && detailFor.version === live.version) return;
    const sameSession = detailFor?.key === key;
    detailFor = { key, version: live.version };
    if (!sameSession)
      v.detail = { key, loading: true, log: null, report: null, conversation: null, error: null };
    if (s.deleted) {
      v.detail = {
        key,
        loading: false,
        log: null,
        report: null,
        conversation: null,
        error: 'the transcript is gone; only its numbers remain',
      };
      return;
    }
    const asked = detailFor;
    void Promise.all([
      deep.calls(s.provider, s.file),
      deep.conversation(s.provider, s.file, { before: null, agent: null }),
    ])
      .then(([log, conversation]) => {
        if (detailFor !== asked) return;
        const report = live.report(s, log);
        v.detail = {
          key,
          loading: false,
          log,
          report,
          conversation: conversation ?? live.conversation(s, { before: null, agent: null }),
          error: null,
        };
        draw();
      })
      .catch((err: Error) => {
        if (detailFor !== asked) return;
        v.detail = {
          key,
          loading: false,
          log: null,
          report: null,
          conversation: null,
          error: `could not read the transcript: ${err.message}`,
        };
        draw();
      });
  };

  let emptyAsked = false;
  const onUpdate = (doc: SessionDocument) => {
    const now = Date.now();
    for (const s of doc.sessions) {
      const key = keyOf(s);
      // Token rate: the smoothed change between refreshes.
      const total = totalTokens(s.tokens) ?? 0;
      const before = previousTokens.get(key);
      if (before && now > before.at) {
        const perMinute = ((total - before.tokens) / (now - before.at)) * 60_000;
        const old = v.rates.get(key) ?? perMinute;
        v.rates.set(key, old + RATE_SMOOTHING * (perMinute - old));
      }
      previousTokens.set(key, { tokens: total, at: now });
    }
    for (const c of waits.update(doc.sessions)) {
      v.rang.set(keyOf(c.session), now + RANG_MARK_MS);
      if (v.notify) screen.signal(notification(c));
    }
    if (doc.sessions.length === 0 && o.whenEmpty && !emptyAsked) {
      emptyAsked = true;
      void o.whenEmpty().then(
        (text) => {
          v.empty = text;
          draw();
        },
        () => {},
      );
    }
    v.doc = doc;
    v.revision++;
    v.loading = null;
    for (const [key, until] of v.rang) if (until <= now) v.rang.delete(key);
    draw();
  };

  const quit = new Promise<number>((resolve) => {
    const finish = () => {
      live.stop();
      deep.close();
      clearInterval(tick);
      if (escapeTimer) clearTimeout(escapeTimer);
      if (statusTimer) clearTimeout(statusTimer);
      o.input.off('data', onData);
      o.out.off('resize', onResize);
      process.off('SIGINT', finish);
      process.off('SIGTERM', finish);
      screen.stop();
      resolve(0);
    };

    const moveBy = (n: number) => {
      const i = lastTableRows.findIndex((r) => keyOf(r.s) === v.selected);
      const next = Math.max(0, Math.min(lastTableRows.length - 1, Math.max(i, 0) + n));
      const r = lastTableRows[next];
      if (r) v.selected = keyOf(r.s);
      v.follow = false;
      v.panelScroll = 0;
    };

    const onKey = (k: Key) => {
      const { rows } = screen.size();
      if (v.filtering) {
        if (k.kind === 'char') v.filter += k.ch;
        else if (k.kind === 'backspace') v.filter = v.filter.slice(0, -1);
        else if (k.kind === 'enter') v.filtering = false;
        else if (k.kind === 'escape') {
          v.filter = '';
          v.filtering = false;
        } else if (k.kind === 'ctrl-c') finish();
        return;
      }
      if (v.help && k.kind !== 'ctrl-c') {
        v.help = false;
        return;
      }
      switch (k.kind) {
        case 'ctrl-c':
          finish();
          return;
        case 'up':
          moveBy(-1);
          return;
        case 'down':
          moveBy(1);
          return;
        case 'pageup':
          moveBy(-Math.max(1, rows - 10));
          return;
        case 'pagedown':
          moveBy(Math.max(1, rows - 10));
          return;
        case 'home':
          moveBy(-1e9);
          return;
        case 'end':
          moveBy(1e9);
          return;
        case 'left':
        case 'right':
        case 'tab': {
          const i = PANELS.indexOf(v.panel);
          v.panel = PANELS[(i + (k.kind === 'left' ? PANELS.length - 1 : 1)) % PANELS.length]!;
          v.panelScroll = 0;
          return;
        }
        case 'wheel':
          moveBy(k.up ? -1 : 1);
          return;
        case 'click': {
          const i = v.top + (k.y - tableStart);
          const r = k.y >= tableStart ? lastTableRows[i] : undefined;
          if (r) {
            v.selected = keyOf(r.s);
            v.follow = false;
          }
          return;
        }
        case 'escape':
          if (v.filter) v.filter = '';
          return;
        case 'enter':
        case 'backspace':
        case 'ctrl-l':
          if (k.kind === 'ctrl-l') screen.invalidate();
          return;
        case 'char':
          break;
      }
      switch (k.ch) {
        case 'q':
          finish();
          return;
        case 'k':
          moveBy(-1);
          return;
        case 'j':
          moveBy(1);
          return;
        case 'g':
          moveBy(-1e9);
          return;
        case 'G':
          moveBy(1e9);
          return;
        case 'h':
          onKey({ kind: 'left' });
          return;
        case 'l':
          onKey({ kind: 'right' });
          return;
        case 'J':
          v.panelScroll += 3;
          return;
        case 'K':
          v.panelScroll = Math.max(0, v.panelScroll - 3);
          return;
        case '/':
          v.filtering = true;
          v.follow = false;
          return;
        case 's':
          v.sort = SORTS[(SORTS.indexOf(v.sort) + 1) % SORTS.length]!;
          say(`sorted by ${v.sort}`);
          return;
        case 'r':
          v.reverse = !v.reverse;
          return;
        case 'f':
          v.follow = !v.follow;
          say(v.follow ? 'following the newest activity' : 'not following');
          return;
        case 'w':
          v.notify = !v.notify;
          say(`notifications ${v.notify ? 'on' : 'off'}`);
          return;
        case '?':
          v.help = true;
          return;
        case 'y': {
          const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
          const cmd = s ? resumeCommand(s) : null;
          if (cmd) {
            // OSC 52: the terminal puts it on the clipboard, over ssh too.
            screen.signal(`\u001b]52;c;${Buffer.from(cmd).toString('base64')}\u0007`);
            say(`copied: ${cmd}`);
          } else say('no resume command for this session');
          return;
        }
        default:
          return;
      }
    };

    const decoder = new KeyDecoder();
    // A character split across reads is joined before it is decoded.
    const utf8 = new StringDecoder('utf8');
    let escapeTimer: NodeJS.Timeout | null = null;
    const onData = (chunk: Buffer) => {
      if (escapeTimer) clearTimeout(escapeTimer);
      escapeTimer = null;
      for (const k of decoder.feed(utf8.write(chunk))) onKey(k);
      if (decoder.pending)
        escapeTimer = setTimeout(() => {
          escapeTimer = null;
          for (const k of decoder.flush()) onKey(k);
          draw();
        }, ESCAPE_WAIT_MS);
      draw();
    };
    const onResize = () => {
      screen.invalidate();
      draw();
    };
    o.input.on('data', onData);
    o.out.on('resize', onResize);
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
    const tick = setInterval(draw, TICK_MS);
    tick.unref();
  });

  screen.start();
  draw();
  live.on('update', onUpdate);
  live.on('error', (err) => say(`refresh failed: ${err.message}`));
  await live.fromIndex().catch(() => null);
  live.start();
  o.onStart?.(live);
  return quit;
}
