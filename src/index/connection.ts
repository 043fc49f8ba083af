/**
 * The session index's hold on its database across refreshes: the store a refresh opens and closes,
 * the notices saying why the index was rebuilt or is not used (told once per process, listed as a
 * `cache` problem every time), and the resolved prices it loads and saves. It exists apart from
 * `session-index.ts` so that the class there reads as what a refresh does, and this as what it
 * keeps of the database between refreshes.
 *
 * Not here: deciding when to open, rebuild or close (the refresh in `session-index.ts` does), what
 * the store holds (`store.ts`), or reading any session.
 */
import type { PriceCache } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';
import { IndexStore } from './store.js';

/** Notices this process already gave: a command that opens the index twice says each once. */
const told = new Set<string>();

export class IndexConnection {
  /** The database of the refresh under way; null between refreshes, or when going without it. */
  store: IndexStore | null = null;
  /** Why the index was rebuilt or is not used: told once, listed as a problem every time. */
  private readonly notices: string[] = [];
  private readonly prices = new Map<string, string>();
  private readonly added = new Map<string, string>();
  /** Resolved prices, loaded from the index when it opens and saved to it after a pass. */
  readonly priceCache: PriceCache = {
    get: (k) => this.prices.get(k),
    set: (k, v) => {
      this.prices.set(k, v);
      this.added.set(k, v);
    },
  };

  constructor(
    private readonly env: Env,
    private readonly useIndex: boolean,
  ) {}

  /** Open the database for one refresh (or go without it, and say why). */
  open(): void {
    if (!this.useIndex) return;
    this.attach(IndexStore.open(cacheDir(this.env)));
  }

  /** Set the damaged database aside and open a new one in its place. */
  rebuild(): void {
    this.attach(IndexStore.rebuild(cacheDir(this.env), this.store!));
  }

  close(): void {
    this.store?.close();
    this.store = null;
  }

  tell(notice: string): void {
    if (!this.notices.includes(notice)) this.notices.push(notice);
  }

  /** The last notice given, if any. */
  lastNotice(): string | null {
    return this.notices.at(-1) ?? null;
  }

  private attach(opened: ReturnType<typeof IndexStore.open>): void {
    if (opened.kind === 'bypassed') {
      this.tell(opened.notice);
      this.store = null;
      return;
    }
    if (opened.rebuilt !== null) this.tell(opened.rebuilt);
    this.store = opened.store;
    try {
      for (const [k, v] of this.store.loadPrices()) this.prices.set(k, v);
    } catch {
      // Resolved prices only save time.
    }
  }

  /**
   * A log holding the index's notices as `cache` problems (`cctop doctor` lists them), and the
   * notice to tell the user: the last one, unless this process told it already.
   */
  startLog(): { log: ProblemLog; notice: string | null } {
    const log = new ProblemLog();
    const path = cacheDir(this.env);
    for (const n of this.notices) log.add({ kind: 'cache', path, count: null, detail: n });
    const last = this.lastNotice();
    const notice = last !== null && !told.has(last) ? last : null;
    if (last !== null) told.add(last);
    return { log, notice };
  }

  savePrices(): void {
    if (this.store === null || this.added.size === 0) return;
    try {
      this.store.savePrices(this.added);
      this.added.clear();
    } catch {
      // Not worth failing over: the prices are resolved again next time.
    }
  }
}
