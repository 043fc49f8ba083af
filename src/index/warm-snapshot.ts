/**
 * A warm snapshot once proved fresh: its sessions joined with the live fields at one moment, and
 * printed as `cctop --json`, `--list` and the usage views read them, straight from the kept bytes
 * (no record is parsed for `--json` or `--list`). Kept apart from `warm.ts` because answering from a
 * snapshot is one job and deciding whether it may answer is another.
 *
 * Not here: whether a snapshot is fresh, or writing one (`warm.ts`), the file's layout
 * (`warm-layout.ts`), the document's printing rules (`render.ts`). Loads no SQLite, no provider
 * and no parser.
 */
import type { Annotator, Plan } from '../model/document.js';
import { DOCUMENT_VERSION } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { type Problem, ProblemLog } from '../model/problems.js';
import type { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import type { Env } from '../providers/types.js';
import { addProblem } from './build-problems.js';
import { type ListedSession, type Shown, shownOf } from './held.js';
import type { DocumentExtras } from './picture.js';
import { documentBytes, windowsMembers, writeSession } from './render.js';
import {
  decodeFacts,
  decodeSpend,
  decodeUsage,
  type KeptParts,
  partsOf,
  sessionKeyOf,
} from './session-record.js';
import { listedOf, type WarmHeader, type WarmSession } from './warm-layout.js';

export interface WarmOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string | undefined;
  sinceMs: number | null;
  untilMs: number | null;
  nowMs: number;
  /** Fills in the process fields, as the index's; left out, `running` stays null. */
  annotate?: Annotator | undefined;
}

/** The sessions of a fresh snapshot, joined with the live fields at one moment. */
export class WarmSnapshot {
  readonly problems: Problem[];
  readonly time: LocalTime;
  private readonly shown: Shown[];

  constructor(
    private readonly h: WarmHeader,
    private readonly listBytes: Buffer,
    private readonly pack: Buffer,
    time: LocalTime,
    private readonly o: WarmOptions,
  ) {
    this.time = time;
    const log = new ProblemLog();
    for (const k of h.problems) addProblem(k.problem, k.after, o.nowMs, log, undefined);
    this.problems = log.list;
    this.shown = h.sessions.map((s) => shownOf(s, o.nowMs));
    o.annotate?.({ sessions: this.shown });
  }

  get count(): number {
    return this.h.sessions.length;
  }

  private part(s: WarmSession): KeptParts {
    const record = this.pack.subarray(s.start, s.start + s.length);
    const at = partsOf(record);
    if (at === null) throw new Error(`the warm snapshot's record of ${s.provider} ${s.id} does not fit`);
    return { sealed: { record, crc: 0 }, at };
  }

  /** Each session's title, for the few views that name sessions besides printing them (collisions). */
  titles(): { provider: ProviderId; id: string; title: string | null }[] {
    return this.h.sessions.map((s) => {
      const facts = decodeFacts({ key: sessionKeyOf(s.provider, s.id), ...this.part(s) });
      if (facts === null) throw new Error(`the warm snapshot's facts of ${s.provider} ${s.id} do not decode`);
      return { provider: s.provider, id: s.id, title: facts.title };
    });
  }

  /**
   * The document as `cctop --json` prints it, with the live fields joined when it was read: written
   * straight from the snapshot's bytes into one buffer, with `tail` (a newline) after it.
   */
  json(extra: DocumentExtras = {}, tail = ''): Buffer {
    const nowMs = this.o.nowMs;
    const shown = this.shown;
    const windows = windowsMembers(this.time, nowMs);
    const frame = {
      version: DOCUMENT_VERSION,
      generatedAt: new Date(nowMs).toISOString(),
      plan: this.o.plan,
      timeZone: this.time.timeZone,
      problems: this.problems,
      totals: this.h.totals,
      ...(extra.collisions === undefined ? {} : { collisions: extra.collisions }),
    };
    const pack = this.pack;
    // The facts and costs are most of the document; the live members and windows add about 400
    // bytes a session.
    const hint = pack.length + this.count * 512;
    return documentBytes(
      frame,
      this.count,
      hint,
      (i, w) => {
        const s = this.h.sessions[i]!;
        const start = s.start;
        const at = partsOf(pack, start, start + s.length);
        if (at === null) throw new Error(`the warm snapshot's record of ${s.provider} ${s.id} does not fit`);
        let spend: ReturnType<typeof decodeSpend> | undefined;
        const windowed = {
          tally: { usd: s.usd },
          lastActiveAt: s.lastActiveAt,
          spend: () => {
            spend ??= decodeSpend(this.part(s));
            if (spend === null)
              throw new Error(`the warm snapshot's spend of ${s.provider} ${s.id} does not decode`);
            return spend;
          },
        };
        writeSession(
          w,
          pack,
          start + at.facts,
          start + at.cost,
          start + at.spend,
          shown[i]!,
          windows(windowed),
        );
      },
      tail,
    );
  }

  /**
   * Every session as a `cctop --list` row reads it, with the live fields joined when it was read: no
   * record is decoded. A list is answered from here only while `cctop run` holds no agent
   * (`views/cli/root-lists.ts`), and its quota reads no session as running, as the warm document's.
   */
  listed(): ListedSession[] {
    const rows = listedOf(this.listBytes.toString('utf8'), this.count);
    if (rows === null) throw new Error("the warm snapshot's --list facts do not read");
    return this.h.sessions.map((s, i) => {
      const [startedAt, title, model, used, compactAt, tokens, included, unpriced, rateLimits] = rows[i]!;
      const live = this.shown[i]!;
      return {
        provider: s.provider,
        id: s.id,
        project: s.project,
        title,
        lastActiveAt: s.lastActiveAt,
        startedAt,
        model,
        usd: s.usd,
        included,
        tokens,
        unpriced,
        rateLimits,
        context: { used, compactAt },
        state: live.state,
        stateSource: live.stateSource,
        running: null,
        cctopRun: false,
      };
    });
  }

  /**
   * Every session's requests per hour, day and model, as `SessionIndex.usage()` gives them;
   * `withTools` false: without their split by tool (`decodeCells`).
   */
  usage(withTools = true): SessionUsage[] {
    return this.h.sessions.map((s) => {
      const cells = decodeUsage(this.part(s), withTools);
      if (cells === null)
        throw new Error(`the warm snapshot's usage of ${s.provider} ${s.id} does not decode`);
      return { provider: s.provider, id: s.id, project: s.project, cells };
    });
  }
}
