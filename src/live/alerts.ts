/**
 * Which alerts are new: a budget crossing 80% or 100% of its limit, and the ways an agent burns money
 * with nobody watching: a stall (working, writing nothing), a burn rate past the config's limit, an
 * error loop (the same call failing again and again). A long-running view feeds the watcher after
 * each refresh, and on a clock so a stall is seen while nothing changes, and shows what it returns.
 *
 * Every alert is an edge, never a level: it fires once when its line is crossed, not on every
 * refresh while it stays crossed.
 *
 * - A budget notifies each level once per period, across restarts (`newCrossings` keeps the memory).
 * - A stall fires once per quiet spell; it re-arms when the session writes again. A session whose
 *   tokens grew since the last refresh is not quiet, whatever times its records carry.
 * - A burn fires when the rate passes the limit, at most once per session per clock hour.
 * - An error loop fires once per streak; a success or another call ends the streak.
 * - A secret fires once per credential written after the session's first sight: a session that
 *   wrote is read on from where the last read stopped, at most every `LOOP_CHECK_EVERY_MS`.
 *
 * A session's first sight sets where it stands, without firing: cctop starting next to a session
 * already stalled or burning saw no crossing, and since these are not remembered across restarts,
 * firing at first sight would repeat them on every start. Budgets are remembered, so they do fire.
 *
 * Not here: reading the config or the clock (`alert-feed.ts`), or ringing anything (the views).
 */
import { type BudgetState, budgetStates, newCrossings } from '../config/index.js';
import type { CallLog } from '../model/calls.js';
import type { ReadPoint } from '../model/conversation.js';
import type { SessionDoc } from '../model/document.js';
import type { QuotaFigure } from '../model/quota.js';
import { totalTokens } from '../model/usage.js';
import type { SecretEnds } from '../secrets/feed.js';
import { spentOver } from '../spend/spent.js';
import type { Alert, AlertInput, AlertWatcherOptions, QuotaCrossing } from './alert-kinds.js';
import type { SecretsRead } from './secrets-read.js';
import { trailingStreaks } from './streaks.js';

export type {
  Alert,
  AlertInput,
  AlertWatcherOptions,
  CallsOf,
  QuotaCrossing,
  SecretsOf,
} from './alert-kinds.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * A session counts toward a burn only when it wrote this recently: spend from an hour ago is not a
 * rate anyone can stop now.
 */
export const BURN_ACTIVE_MS = 10 * MINUTE_MS;

/**
 * The least time between two reads of one session's calls. A loop of failing calls takes seconds a
 * call, so noticing it 20 s later costs little, and a 90 MB transcript is not read on every 2 s
 * refresh while its agent keeps failing.
 */
export const LOOP_CHECK_EVERY_MS = 20_000;

/**
 * Sessions waiting for their calls (or their secrets) to be read, one read at a time. Past this a
 * session is not queued; it is queued again the next time it writes.
 */
export const MAX_QUEUED_LOOP_CHECKS = 64;

/**
 * Secrets told per session, remembered so that a transcript its reader must read from the top again
 * does not tell them twice. Past this the oldest are forgotten: a session that has printed hundreds
 * of credentials has been told about many times over.
 */
export const MAX_TOLD_SECRETS = 256;

/**
 * A session's burn rate, in dollars an hour: its spend in the previous and the current clock hour
 * (the last two entries of `cost.byHour`) divided by the time from the previous hour's start to when
 * the document was made, so between one and two hours: one costly request at the top of an hour does
 * not read as thousands of dollars an hour. Null when it wrote nothing in the last `BURN_ACTIVE_MS`,
 * or its spend is unknown.
 */
export function burnRate(s: SessionDoc, generatedMs: number, nowMs: number): number | null {
  const hours = s.cost.byHour;
  const last = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
  if (hours === null || hours.usd.length < 2 || !(nowMs - last <= BURN_ACTIVE_MS)) return null;
  const previousStart = Date.parse(hours.start) + (hours.usd.length - 2) * HOUR_MS;
  const spent = hours.usd.at(-1)! + hours.usd.at(-2)!;
  const span = Math.max(HOUR_MS, generatedMs - previousStart);
  return (spent / span) * HOUR_MS;
}

/** What the watcher remembers of one session between refreshes. */
interface Seen {
  /** The quiet spell a stall was fired for (or found at first sight), as `spellOf` names it. */
  stalledAt: string | null;
  /** The session's token total as last counted (null: it records none). */
  tokens: number | null;
  /**
   * When its token total was last seen to grow: a session whose tokens grow is not stalled, whatever
   * the times its records carry (a replay of old records, a harness stamping a turn's start).
   */
  grewAtMs: number | null;
  /** Whether the burn rate was past the limit last time, and the hour a burn last fired. */
  burning: boolean;
  burnHour: number | null;
  /** Failed calls as last counted. */
  failed: number;
  /** The streaks already notified, as `trailingStreaks` names them. */
  streaks: Set<string>;
  /** Its newest record's time when last seen: a new one means there is new text to look at. */
  wroteAt: string | null;
  /**
   * What reading it for secrets has established: secrets in turns from before `sinceMs` (the first
   * sight) were there before cctop looked and are not news; `told` names the ones already said.
   */
  secrets: { sinceMs: number; from: ReadPoint | null; told: Set<string> };
}

const sessionKey = (s: Pick<SessionDoc, 'provider' | 'id'>): string => `${s.provider}\u0000${s.id}`;

/** A queued read's key: what is read, then the session's key. */
const readKey = (what: 'loop' | 'secrets', s: SessionDoc): string => `${what}\u0001${sessionKey(s)}`;
const sessionOfRead = (key: string): string => key.slice(key.indexOf('\u0001') + 1);

export class AlertWatcher {
  private readonly seen = new Map<string, Seen>();
  /**
   * Reads waiting their turn, with the session's newest document: its calls when its failures grew
   * (`loop`), its new text when it wrote (`secrets`). Keyed by what is read and the session.
   */
  private readonly queued = new Map<string, { what: 'loop' | 'secrets'; session: SessionDoc }>();
  private readonly checkedAt = new Map<string, number>();
  private reading: Promise<void> | null = null;
  private errorLoop: number | null = null;
  private nowMs = 0;
  private states: BudgetState[] = [];
  /** The quota crossings already told (or found at the first look), by window, reset and why. */
  private quotaTold: Set<string> | null = null;

  constructor(private readonly o: AlertWatcherOptions) {}

  /** Where each budget stood at the last update. */
  get budgets(): readonly BudgetState[] {
    return this.states;
  }

  /** The alerts crossed since the last update; error loops come later, through `later`. */
  update(input: AlertInput): Alert[] {
    const { alerts } = input.config;
    this.nowMs = input.nowMs;
    this.errorLoop = alerts.errorLoop;
    const out = this.budgetAlerts(input);
    out.push(...this.quotaAlerts(input));
    const generatedMs = Date.parse(input.doc.generatedAt);
    const present = new Set<string>();
    for (const s of input.doc.sessions) {
      const key = sessionKey(s);
      present.add(key);
      const seen = this.seen.get(key);
      if (seen === undefined) {
        this.seen.set(key, this.firstSight(s, input, generatedMs));
        continue;
      }
      const tokens = totalTokens(s.tokens);
      if (tokens !== null && seen.tokens !== null && tokens > seen.tokens) seen.grewAtMs = input.nowMs;
      seen.tokens = tokens;
      const stall = this.stall(s, seen, alerts.stallMinutes, input.nowMs);
      if (stall) out.push(stall);
      const burn = this.burn(s, seen, alerts.burnUsdPerHour, generatedMs, input.nowMs);
      if (burn) out.push(burn);
      this.failures(s, seen);
      this.wrote(s, seen, input.config.alerts.secrets);
    }
    // A session gone from the document (deleted, filtered away) is forgotten with what it held.
    for (const key of this.seen.keys()) if (!present.has(key)) this.seen.delete(key);
    for (const key of this.checkedAt.keys()) if (!present.has(sessionOfRead(key))) this.checkedAt.delete(key);
    for (const key of this.queued.keys()) if (!present.has(sessionOfRead(key))) this.queued.delete(key);
    this.pump();
    return out;
  }

  /** Resolves once no call log is being read or waits to be (for tests and a clean stop). */
  async settled(): Promise<void> {
    while (this.reading !== null) await this.reading;
  }

  private budgetAlerts(input: AlertInput): Alert[] {
    const { budgets, reports } = input.config;
    if (budgets.length === 0) {
      this.states = [];
      return [];
    }
    const spent = spentOver(input.usage());
    this.states = budgetStates(budgets, spent, input.nowMs, input.time, reports.startOfWeek);
    return newCrossings(this.states, this.o.env).map((state) => ({
      kind: 'budget',
      state,
      level: state.level === 'ok' ? 'near' : state.level,
    }));
  }

  /**
   * A window passing the threshold, or projected to run out before it resets: once per window per
   * reset (the reset time names the window's period). The first look sets what was already crossed,
   * without telling it, as for a session's first sight.
   */
  private quotaAlerts(input: AlertInput): Alert[] {
    const limit = input.config.alerts.quotaPercent;
    if (input.quota === undefined) return [];
    const { quota, pace } = input.quota();
    const first = this.quotaTold === null;
    const told = this.quotaTold ?? new Set<string>();
    this.quotaTold = told;
    const out: Alert[] = [];
    const tell = (figure: QuotaFigure, crossed: QuotaCrossing) => {
      const key = [figure.harness, figure.account, figure.window, figure.resetsAt, crossed.why].join(
        '\u0000',
      );
      if (told.has(key)) return;
      told.add(key);
      if (!first) out.push({ kind: 'quota', figure, crossed, nowMs: input.nowMs });
    };
    for (const f of quota) {
      if (f.stale || f.usedPercent === null) continue;
      if (limit !== null && f.usedPercent >= limit) tell(f, { why: 'threshold', percent: limit });
      const p = pace.find((x) => x.harness === f.harness && x.window === f.window);
      if (p?.beforeReset === true && p.runsOutAt !== null) tell(f, { why: 'runs-out', at: p.runsOutAt });
    }
    return out;
  }

  private firstSight(s: SessionDoc, input: AlertInput, generatedMs: number): Seen {
    const { stallMinutes, burnUsdPerHour } = input.config.alerts;
    const rate = burnRate(s, generatedMs, input.nowMs);
    const quiet = quietMs(s, input.nowMs);
    return {
      stalledAt:
        stallMinutes !== null && quiet !== null && quiet >= stallMinutes * MINUTE_MS
          ? spellOf(s, null)
          : null,
      tokens: totalTokens(s.tokens),
      grewAtMs: null,
      burning: burnUsdPerHour !== null && rate !== null && rate > burnUsdPerHour,
      burnHour: null,
      failed: s.tools.failed ?? 0,
      streaks: new Set(),
      wroteAt: s.lastActiveAt,
      secrets: { sinceMs: input.nowMs, from: null, told: new Set() },
    };
  }

  private stall(s: SessionDoc, seen: Seen, minutes: number | null, nowMs: number): Alert | null {
    const written = quietMs(s, nowMs);
    const quiet =
      written === null || seen.grewAtMs === null ? written : Math.min(written, nowMs - seen.grewAtMs);
    if (minutes === null || quiet === null || quiet < minutes * MINUTE_MS) return null;
    const spell = spellOf(s, seen.grewAtMs);
    if (seen.stalledAt === spell) return null;
    seen.stalledAt = spell;
    return { kind: 'stall', session: s, quietMinutes: Math.floor(quiet / MINUTE_MS) };
  }

  private burn(
    s: SessionDoc,
    seen: Seen,
    limit: number | null,
    generatedMs: number,
    nowMs: number,
  ): Alert | null {
    const rate = burnRate(s, generatedMs, nowMs);
    const over = limit !== null && rate !== null && rate > limit;
    const crossed = over && !seen.burning;
    seen.burning = over;
    const hour = Math.floor(nowMs / HOUR_MS);
    if (!crossed || seen.burnHour === hour) return null;
    seen.burnHour = hour;
    return { kind: 'burn', session: s, usdPerHour: rate!, limitUsdPerHour: limit! };
  }

  /** Queue a read of the session's calls when its failures grew (and a loop could be that long). */
  private failures(s: SessionDoc, seen: Seen): void {
    const failed = s.tools.failed ?? 0;
    const grew = failed > seen.failed;
    seen.failed = failed;
    if (!grew || this.errorLoop === null || failed < this.errorLoop || s.deleted) return;
    this.enqueue('loop', s);
  }

  /** Queue a read for secrets when the session wrote since it was last seen (and the alert is on). */
  private wrote(s: SessionDoc, seen: Seen, on: boolean): void {
    const fresh = s.lastActiveAt !== seen.wroteAt;
    seen.wroteAt = s.lastActiveAt;
    if (!fresh || !on || this.o.secrets === undefined || s.deleted) return;
    this.enqueue('secrets', s);
  }

  private enqueue(what: 'loop' | 'secrets', s: SessionDoc): void {
    const key = readKey(what, s);
    if (this.queued.has(key) || this.queued.size < MAX_QUEUED_LOOP_CHECKS)
      this.queued.set(key, { what, session: s });
  }

  /** Start reading the next queued session's calls, unless a read runs or none is due yet. */
  private pump(): void {
    if (this.reading !== null) return;
    for (const [key, { what, session }] of this.queued) {
      if (this.nowMs - (this.checkedAt.get(key) ?? -Infinity) < LOOP_CHECK_EVERY_MS) continue;
      this.queued.delete(key);
      this.checkedAt.set(key, this.nowMs);
      const read = what === 'loop' ? this.check(session) : this.checkSecrets(session);
      this.reading = read.finally(() => {
        this.reading = null;
        this.pump();
      });
      return;
    }
  }

  private async check(s: SessionDoc): Promise<void> {
    const key = sessionKey(s);
    let log: CallLog;
    try {
      log = await this.o.calls(s);
    } catch {
      // Unreadable now (the worker failed, the file went): the next failure asks again.
      return;
    }
    const seen = this.seen.get(key);
    const n = this.errorLoop;
    if (seen === undefined || n === null) return;
    const long = trailingStreaks(log).filter((r) => r.count >= n);
    const fresh = long.filter((r) => !seen.streaks.has(r.id));
    // Only the streaks still running are remembered: one that ended cannot fire again.
    seen.streaks = new Set(long.map((r) => r.id));
    if (fresh.length === 0) return;
    this.o.later(
      fresh.map((r) => ({
        kind: 'error-loop',
        session: s,
        tool: r.name,
        input: shortened(r.argument),
        count: r.count,
      })),
    );
  }

  /** Read what the session wrote since the last read, and tell the secrets new since the first sight. */
  private async checkSecrets(s: SessionDoc): Promise<void> {
    const seen = this.seen.get(sessionKey(s));
    if (seen === undefined || this.o.secrets === undefined) return;
    const was = seen.secrets;
    let read: SecretsRead;
    try {
      read = await this.o.secrets(s, was.from);
    } catch {
      // Unreadable now (the worker failed, the file went): the next write asks again.
      return;
    }
    was.from = read.resume;
    const fresh: SecretEnds[] = [];
    for (const f of read.secrets) {
      // Found in a turn from before the first sight, or with no time to tell: not news.
      if (f.tsMs === null || f.tsMs < was.sinceMs) continue;
      const id = `${f.seq}\u0000${f.kind}\u0000${f.head}\u0000${f.tail}`;
      if (was.told.has(id)) continue;
      was.told.add(id);
      if (was.told.size > MAX_TOLD_SECRETS) was.told.delete(was.told.values().next().value!);
      fresh.push(f);
    }
    if (fresh.length > 0) this.o.later([{ kind: 'secret', session: s, found: fresh }]);
  }
}

/**
 * The longest input an error-loop alert carries: a notification shows a line or two, and an input
 * can be a whole file being written.
 */
export const MAX_ALERT_INPUT_CHARS = 120;

/** The input on one line, cut to `MAX_ALERT_INPUT_CHARS` with `…`. */
function shortened(argument: string): string {
  // A few times the bound fills it once whitespace folds, however long the input is.
  const head = MAX_ALERT_INPUT_CHARS * 4;
  const line = argument.slice(0, head).replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  if (argument.length <= head && chars.length <= MAX_ALERT_INPUT_CHARS) return line;
  return `${chars.slice(0, MAX_ALERT_INPUT_CHARS - 1).join('')}…`;
}

/** How long a working session has been quiet; null when it is not working, or not burning anything. */
/** A quiet spell's name: it starts at the newest record, or at the last growth of the tokens if later. */
const spellOf = (s: SessionDoc, grewAtMs: number | null): string => `${s.lastActiveAt}@${grewAtMs ?? ''}`;

function quietMs(s: SessionDoc, nowMs: number): number | null {
  // Waiting on a permission prompt is the wait notification's news; a session no process runs
  // spends nothing.
  if (s.deleted || s.state !== 'working' || s.inferred !== null || s.running === false) return null;
  const last = s.lastActiveAt === null ? Number.NaN : Date.parse(s.lastActiveAt);
  return Number.isFinite(last) ? Math.max(0, nowMs - last) : null;
}
