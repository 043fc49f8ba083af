/**
 * Deduplicating billed requests across files.
 *
 * A response counts once however many files repeat it. A resumed Claude session replays its parent's
 * responses into a new file; a `/btw` side question replays the main thread with new request ids but
 * the same message ids; a streamed response is written several times with growing usage. The rules:
 *
 * - same message and same request id: one response; keep the main-thread copy, else the fuller one;
 * - same message, different request id, one copy a sidechain: the sidechain copy is a replay;
 * - same message, different request ids, both main-thread: distinct responses, both count;
 * - no message id: never a duplicate.
 *
 * Files are visited in the order given (oldest first), so a tie goes to the file that had it first.
 */
import { F, FLAG, type Ledger, RECORD_FIELDS } from './ledger.js';

interface Holder {
  ledger: number;
  record: number;
  req: number;
  sidechain: boolean;
  total: number;
}

/** For each ledger, a mask with 1 for the records that count. */
export function dedupe(ledgers: readonly Ledger[]): Uint8Array[] {
  const masks = ledgers.map((l) => new Uint8Array(l.data.length / RECORD_FIELDS));
  const seen = new Map<number, Holder | Holder[]>();
  ledgers.forEach((ledger, li) => {
    const d = ledger.data;
    const mask = masks[li]!;
    for (let r = 0, at = 0; at < d.length; r++, at += RECORD_FIELDS) {
      const flags = d[at + F.FLAGS]!;
      if (flags & FLAG.NO_KEY) {
        mask[r] = 1;
        continue;
      }
      // 53 bits of the 64-bit message hash: collisions are negligible at any realistic history size.
      const key = d[at + F.KEY_HI]! * 2 ** 21 + (d[at + F.KEY_LO]! >>> 11);
      const me: Holder = {
        ledger: li,
        record: r,
        req: d[at + F.REQ]!,
        sidechain: (flags & FLAG.SIDECHAIN) !== 0,
        total:
          d[at + F.INPUT]! +
          d[at + F.OUTPUT]! +
          d[at + F.CACHE_READ]! +
          d[at + F.CACHE_WRITE_5M]! +
          d[at + F.CACHE_WRITE_1H]!,
      };
      const held = seen.get(key);
      if (held === undefined) {
        seen.set(key, me);
        mask[r] = 1;
        continue;
      }
      const holders = Array.isArray(held) ? held : [held];
      const twin = holders.findIndex((h) => h.req === me.req || h.sidechain || me.sidechain);
      if (twin === -1) {
        holders.push(me);
        if (!Array.isArray(held)) seen.set(key, holders);
        mask[r] = 1;
        continue;
      }
      const other = holders[twin]!;
      const replace = other.sidechain !== me.sidechain ? other.sidechain : me.total > other.total;
      if (replace) {
        masks[other.ledger]![other.record] = 0;
        mask[r] = 1;
        holders[twin] = me;
        if (!Array.isArray(held)) seen.set(key, me);
      }
    }
  });
  return masks;
}
