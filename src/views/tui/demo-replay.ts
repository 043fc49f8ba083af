/**
 * `cctop --demo` on a terminal: a couple of the sample sessions are replayed into their transcripts
 * in real time, so the table's rows move, states change and a notification fires, on a machine
 * with no agent history at all.
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

/**
 * Start replaying the two most recent sessions of the demo home. Returns the annotator that marks
 * them as running (no real process runs a demo session) and a stop function.
 */
export function startReplay(home: string): { annotate: Annotator; stop: () => void } {
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
  const timer = setInterval(() => {
    if (Date.now() < waitUntil) return;
    let done = true;
    for (const r of replays) {
      if (r.at < r.lines.length) {
        appendFileSync(r.path, r.lines[r.at++]!);
        done = false;
      }
    }
    if (done) {
      waitUntil = Date.now() + RESTART_MS;
      for (const r of replays) {
        truncateSync(r.path, 0);
        appendFileSync(r.path, r.lines.slice(0, r.head).join(''));
        r.at = r.head;
      }
    }
  }, STEP_MS);
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
  };
}
