/**
 * Other machines on the dashboard (`cctop serve --host`): their rows beside this machine's in the one
 * document every page follows, and which of those rows moved when a host answered, so an answer is
 * an ordinary numbered update (`delta.ts`) and not a reload of the whole document.
 *
 * The hosts are polled by the same `HostPoller` as the live table's, each on its own schedule: a
 * dead or slow host delays only its own rows, never this machine's updates or the other hosts'. A
 * host that stops answering keeps its last rows; the document's `hosts` says since when and why, and
 * the page greys them.
 *
 * Not here: ssh and the remote document (`hosts/`), or fetching one remote session's report and
 * conversation (`hosts-fetch.ts`).
 */
import type { HostPoller, HostSpec, HostView } from '../../hosts/index.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import {
  addSpend,
  type DocumentTotals,
  emptySpendTotals,
  type SpendTotals,
  settleSpend,
  totalsOf,
} from '../../model/totals.js';
import { documentOrder, mergeOrdered, type RowChanges, type RowRef, sessionKey } from './delta.js';

interface Kept {
  row: SessionDoc;
  /** The row as JSON, to tell a moved row from the same one answered again. */
  json: string;
}

export class ServedHosts {
  private views: HostView[];
  /** Every remote row as last taken, by `sessionKey`. */
  private kept = new Map<string, Kept>();
  /** The remote rows in document order. */
  private sorted: SessionDoc[] = [];
  /** Their totals, summed once per answer rather than on every update of this machine's rows. */
  private totals: DocumentTotals = totalsOf([]);

  constructor(
    readonly poller: HostPoller,
    /** The hosts as given, in order: what a request may name. */
    readonly hosts: readonly HostSpec[],
  ) {
    this.views = poller.views();
  }

  /** The host a request names, if it is one of the hosts this server reads (exactly as given). */
  spec(name: string): HostSpec | null {
    return this.hosts.find((h) => h.name === name) ?? null;
  }

  /** The rows of one host, as last taken. */
  rowsOf(name: string): SessionDoc[] {
    return this.views.find((v) => v.status.host === name)?.sessions ?? [];
  }

  /** Whether `name` has answered at all since this server started (else it has no rows to look in). */
  heardFrom(name: string): boolean {
    const s = this.views.find((v) => v.status.host === name)?.status;
    return s !== undefined && (s.ok || s.answeredAt !== null);
  }

  /**
   * Take the poller's views as they are now, and say which remote rows moved since the last take:
   * new or changed rows whole, and the ones no longer there.
   */
  take(): RowChanges {
    this.views = this.poller.views();
    const next = new Map<string, Kept>();
    const changed: SessionDoc[] = [];
    for (const v of this.views) {
      for (const row of v.sessions) {
        const key = sessionKey(row);
        const json = JSON.stringify(row);
        // The same key twice in one answer: the first one stands (the document keys rows by it).
        if (next.has(key)) continue;
        next.set(key, { row, json });
        if (this.kept.get(key)?.json !== json) changed.push(row);
      }
    }
    const removed: RowRef[] = [];
    for (const [key, k] of this.kept)
      if (!next.has(key)) removed.push({ provider: k.row.provider, id: k.row.id, host: k.row.host ?? '' });
    this.kept = next;
    this.sorted = [...next.values()].map((k) => k.row).sort(documentOrder);
    this.totals = totalsOf(this.sorted);
    return { kind: 'some', changed, removed };
  }

  /** `local` with the hosts' rows beside its own, totals over all of them, and how each host answered. */
  merged(local: SessionDocument): SessionDocument {
    const sessions = mergeOrdered(local.sessions, this.sorted);
    return {
      ...local,
      sessions,
      totals: sumTotals(local.totals, this.totals),
      hosts: this.views.map((v) => v.status),
    };
  }
}

/** Two sums as one: this machine's totals (already summed) and the hosts'. */
function plus(a: SpendTotals | undefined, b: SpendTotals | undefined): SpendTotals {
  const into = emptySpendTotals();
  for (const t of [a, b]) {
    if (t === undefined) continue;
    into.sessions += t.sessions;
    addSpend(into, {
      ...t,
      usd: t.cost.usd,
      included: t.cost.included,
      unpricedTokens: t.cost.unpricedTokens,
    });
  }
  return settleSpend(into);
}

/**
 * `totalsOf` over both documents' sessions, from their totals: summing thousands of sessions again
 * on every update of this machine's rows would cost tens of ms each time.
 */
function sumTotals(local: DocumentTotals, remote: DocumentTotals): DocumentTotals {
  const byProvider: DocumentTotals['byProvider'] = {};
  const providers = new Set([...Object.keys(local.byProvider), ...Object.keys(remote.byProvider)]);
  for (const p of providers as Set<keyof DocumentTotals['byProvider']>)
    byProvider[p] = plus(local.byProvider[p], remote.byProvider[p]);
  return { all: plus(local.all, remote.all), byProvider };
}
