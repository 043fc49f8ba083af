/**
 * Another machine's session in the panels: its report (the Tools and Context panels) and its
 * conversation (the Chat panel), each fetched over ssh from the cctop there (`hosts/fetch.ts`) the
 * first time a panel needs it, and again when a panel needs it after the row moved on.
 *
 * Never in the way: a fetch runs beside the table (a child ssh), the panel says "fetching from H…"
 * until it lands, and a key pressed meanwhile acts at once. Moving to another row stops the fetch of
 * the one left (its ssh is killed), so scrolling past remote rows with the Chat panel open costs one
 * ssh at a time. An answer that lands after the selection moved on is dropped.
 *
 * It only fills `ViewState.detail`; what the panels make of it is `panels.ts`'s business.
 */
import {
  type Fetched,
  fetchConversation,
  fetchProblem,
  fetchReport,
  type HostPoller,
  type HostSpec,
  type ReadOptions,
} from '../../hosts/index.js';
import type { LiveOptions } from '../../live/engine.js';
import type { SessionDoc } from '../../model/document.js';
import type { Env } from '../../providers/types.js';
import type { RemoteDetail } from './remote-panels.js';
import { type Fetching, keyOf, type Panel, type ViewState } from './state.js';

/** What the table knows of reaching other machines. */
export interface RemoteReach {
  env: Env;
  /** The spec a remote row's host was read with (its cctop path), or null when it is not polled. */
  spec(name: string): HostSpec | null;
  /** Passed on to the remote cctop (`--plan`, `--timezone`), so its report prices as its row does. */
  args: readonly string[];
}

/** How the live table reaches the machines its poller reads, with its own plan and time zone passed on. */
export function remoteDetails(
  live: Pick<LiveOptions, 'env' | 'plan' | 'timeZone'>,
  hosts: HostPoller,
): RemoteDetails {
  return new RemoteDetails({
    env: live.env,
    spec: (name) => hosts.hosts.find((h) => h.name === name) ?? null,
    args: ['--plan', live.plan, ...(live.timeZone ? ['--timezone', live.timeZone] : [])],
  });
}

type Part = 'report' | 'conversation';

/** Which part each panel draws from; the others need only the row. */
const PART_OF: Partial<Record<Panel, Part>> = { tools: 'report', context: 'report', chat: 'conversation' };

/** What a remote row is, for telling whether it moved since a part was fetched. */
const stampOf = (s: SessionDoc): string => `${s.lastActiveAt ?? ''}\u0000${s.requests}`;

/** A part being fetched: one already shown stays shown while its newer copy is on its way. */
const onItsWay = <T>(f: Fetching<T>): Fetching<T> =>
  f.kind === 'read' ? { ...f, refreshing: true } : { kind: 'fetching' };

/** The part in flight: for which row as it was, and how to stop it. */
interface InFlight {
  key: string;
  part: Part;
  stamp: string;
  stop: AbortController;
}

export class RemoteDetails {
  /** What each part was last fetched for (the row's stamp), per selected row. */
  private fetched: { key: string; stamps: Partial<Record<Part, string>> } | null = null;
  private readonly flying: Partial<Record<Part, InFlight>> = {};

  constructor(private readonly reach: RemoteReach) {}

  /** Fill `v.detail` for remote row `s`, fetching what the open panel needs; `landed` redraws. */
  load(v: ViewState, s: SessionDoc, host: string, landed: () => void): void {
    const key = keyOf(s);
    if (v.detail?.kind !== 'remote' || v.detail.key !== key) {
      this.stop();
      this.fetched = { key, stamps: {} };
      v.detail = {
        kind: 'remote',
        key,
        host,
        report: { kind: 'unasked' },
        conversation: { kind: 'unasked' },
      };
    }
    const part = PART_OF[v.panel];
    if (part === undefined) return;
    const stamp = stampOf(s);
    if (this.fetched?.stamps[part] === stamp || this.flying[part]?.stamp === stamp) return;
    this.start(v, s, host, part, stamp, landed);
  }

  private start(v: ViewState, s: SessionDoc, host: string, part: Part, stamp: string, landed: () => void) {
    const detail = v.detail;
    if (detail?.kind !== 'remote') return;
    const spec = this.reach.spec(host);
    if (spec === null) {
      if (this.fetched !== null) this.fetched.stamps[part] = stamp;
      detail[part] = { kind: 'failed', error: `${host} is not among the hosts this table reads` };
      return;
    }
    this.flying[part]?.stop.abort();
    const flight: InFlight = { key: detail.key, part, stamp, stop: new AbortController() };
    this.flying[part] = flight;
    const o: ReadOptions = { env: this.reach.env, args: this.reach.args, signal: flight.stop.signal };
    const land = { v, host, flight, landed };
    if (part === 'report') {
      detail.report = onItsWay(detail.report);
      this.land(land, fetchReport(spec, s.id, o), (d, f) => {
        d.report = f;
      });
    } else {
      detail.conversation = onItsWay(detail.conversation);
      this.land(land, fetchConversation(spec, s.id, {}, o), (d, f) => {
        d.conversation = f;
      });
    }
  }

  /** Put what `fetch` brings into the detail with `put`, unless the row was left or a newer fetch started. */
  private land<T>(
    { v, host, flight, landed }: { v: ViewState; host: string; flight: InFlight; landed: () => void },
    fetch: Promise<Fetched<T>>,
    put: (d: RemoteDetail, f: Fetching<T>) => void,
  ): void {
    void fetch.then((r) => {
      if (this.flying[flight.part] !== flight) return;
      delete this.flying[flight.part];
      const now = v.detail;
      if (now?.kind !== 'remote' || now.key !== flight.key) return;
      if (this.fetched?.key === flight.key) this.fetched.stamps[flight.part] = flight.stamp;
      put(
        now,
        r.kind === 'read'
          ? { kind: 'read', value: r.value, refreshing: false }
          : { kind: 'failed', error: fetchProblem(host, r) },
      );
      landed();
    });
  }

  /** Stop every fetch in flight (the row was left, or the table closes). */
  stop(): void {
    for (const part of ['report', 'conversation'] as const) {
      this.flying[part]?.stop.abort();
      delete this.flying[part];
    }
  }
}
