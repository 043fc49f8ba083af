/**
 * `cctop --demo` on a terminal: a couple of the sample sessions are replayed into their transcripts
 * in real time, so the table's rows move, states change and a notification fires, on a machine
 * with no agent history at all.
 *
 * A replayed record is stamped with the moment it is written, as the agent would have written it:
 * with the sample's own (older) times a working row read LAST `4m` while it grew, and the stall
 * alert fired on it. When a replay starts over its totals fall; the token rate starts over with
 * them (`live/token-rates.ts`).
 */
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import type { Annotator } from '../../model/document.js';

/** Seconds between replayed records. */
const STEP_MS = 1200;
/** How much of a replayed transcript is there when the demo opens. */
const HEAD_SHARE = 0.4;
/** Pause before a finished replay starts over. */
const RESTART_MS = 15_000;

interface Replay {
  path: string;
  lines: string[];
  at: number;
  head: number;
}

function transcripts(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...transcripts(p));
    else if (e.name.endsWith('.jsonl') && !p.includes('/subagents/')) out.push(p);
  }
  return out;
}

/** A timestamp in a record, as the demo's files write them. */
const ISO = /"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g;

/** A record as if written at `nowMs`: every time it carries is that moment. */
export function stamped(line: string, nowMs: number): string {
  const at = `"${new Date(nowMs).toISOString()}"`;
  return line.replace(ISO, at);
}

export interface Replaying {
  /** Marks the replayed sessions as running (no real process runs a demo session). */
  annotate: Annotator;
  stop: () => void;
  /** Append the next record of each replay now (the timer does this every `STEP_MS`). */
  step: () => void;
}

/**
 * Start replaying the two most recent sessions of the demo home. `now` is the clock the replayed
 * records are stamped with.
 */
export function startReplay(home: string, now: () => number = Date.now): Replaying {
  const newest = transcripts(home)
    .map((p) => ({ p, m: statSync(p).mtimeMs }))
    .sort((a, b) => b.m - a.m)
    .slice(0, 2)
    .map((x) => x.p);
  const replays: Replay[] = newest.map((path) => {
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => `${l}\n`);
    const head = Math.max(1, Math.floor(lines.length * HEAD_SHARE));
    const r: Replay = { path, lines, at: head, head };
    truncateSync(path, 0);
    appendFileSync(path, lines.slice(0, head).join(''));
    return r;
  });
  let waitUntil = 0;
  const step = () => {
    if (now() < waitUntil) return;
    let done = true;
    for (const r of replays) {
      if (r.at < r.lines.length) {
        appendFileSync(r.path, stamped(r.lines[r.at++]!, now()));
        done = false;
      }
    }
    if (done) {
      waitUntil = now() + RESTART_MS;
      for (const r of replays) {
        truncateSync(r.path, 0);
        appendFileSync(r.path, r.lines.slice(0, r.head).join(''));
        r.at = r.head;
      }
    }
  };
  const timer = setInterval(step, STEP_MS);
  timer.unref();
  const running = new Set(newest);
  return {
    annotate: (doc) => {
      let changed = false;
      for (const s of doc.sessions) {
        const r = running.has(s.file);
        if (s.running !== r) changed = true;
        s.running = r;
      }
      return changed;
    },
    stop: () => clearInterval(timer),
    step,
  };
}
