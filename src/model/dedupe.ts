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
 * The first `settled` of them (the files still on disk) are never displaced by a later one (a file
 * only the index remembers): their records count exactly as if the later ones were not there.
 *
 * A warm start deduplicates a few hundred thousand records, so the table is open addressing over
 * typed arrays rather than a `Map` of objects; the rare message seen more than once keeps its extra
 * holders in a side list.
 */
import { valueList } from './kinds.js';
import { emptyLedger, F, FLAG, type Ledger, RECORD_FIELDS } from './ledger.js';

/**
 * One table slot: a message's 64-bit key, and the ledger and record that hold it (the ledger's index
 * plus one, 0 for a free slot, so that a fresh table needs no filling). Side by side in one array, so
 * that a probe reads one cache line, not four: over a cold build's few hundred thousand records the
 * table is some megabytes, and a probe is nearly always a miss in the processor's cache.
 */
const SLOT = 4;
const S_HI = 0;
const S_LO = 1;
const S_LEDGER = 2;
const S_RECORD = 3;

/**
 * For each ledger, a mask with 1 for the records that count. A record of a ledger from `settled` on
 * that the rules take for a copy of one before `settled` does not count, whichever copy they prefer.
 */
export function dedupe(ledgers: readonly Ledger[], settled = ledgers.length): Uint8Array[] {
  // A plain loop, not `map`: the callers' arrays and this one then keep one kind (`kinds.ts`).
  const masks = valueList(new Uint8Array(0));
  let total = 0;
  for (let li = 0; li < ledgers.length; li++) {
    const m = new Uint8Array(ledgers[li]!.data.length / RECORD_FIELDS);
    masks.push(m);
    total += m.length;
  }
  let size = 16;
  while (size < total * 2) size *= 2;
  const mask = size - 1;
  // Keys are stored as signed 32-bit words (`| 0`) and compared so.
  const table = new Int32Array(size * SLOT);
  // Holders beyond the first for one message (different request ids), keyed by table slot.
  const more = new Map<number, [number, number][]>();

  const d = (li: number) => ledgers[li]!.data;
  const field = (li: number, r: number, f: number) => d(li)[r * RECORD_FIELDS + f]!;
  const totalOf = (li: number, r: number) =>
    field(li, r, F.INPUT) +
    field(li, r, F.OUTPUT) +
    field(li, r, F.CACHE_READ) +
    field(li, r, F.CACHE_WRITE_5M) +
    field(li, r, F.CACHE_WRITE_1H);
  const sidechain = (li: number, r: number) => (field(li, r, F.FLAGS) & FLAG.SIDECHAIN) !== 0;

  /** Whether the candidate replaces the holder: main thread beats sidechain, then the fuller copy. */
  const wins = (li: number, r: number, hl: number, hr: number): boolean => {
    const s = sidechain(li, r);
    const hs = sidechain(hl, hr);
    return s !== hs ? hs : totalOf(li, r) > totalOf(hl, hr);
  };

  for (let li = 0; li < ledgers.length; li++) {
    const data = ledgers[li]!.data;
    const m = masks[li]!;
    for (let r = 0, o = 0; o < data.length; r++, o += RECORD_FIELDS) {
      if (data[o + F.FLAGS]! & FLAG.NO_KEY) {
        m[r] = 1;
        continue;
      }
      const kh = data[o + F.KEY_HI]! | 0;
      const kl = data[o + F.KEY_LO]! | 0;
      let slot = (kl ^ Math.imul(kh, 0x9e3779b1)) & mask;
      let s = slot * SLOT;
      while (table[s + S_LEDGER] !== 0 && (table[s + S_HI] !== kh || table[s + S_LO] !== kl)) {
        slot = (slot + 1) & mask;
        s = slot * SLOT;
      }
      if (table[s + S_LEDGER] === 0) {
        table[s + S_HI] = kh;
        table[s + S_LO] = kl;
        table[s + S_LEDGER] = li + 1;
        table[s + S_RECORD] = r;
        m[r] = 1;
        continue;
      }
      // The same message again: find the holder this copy competes with.
      const req = data[o + F.REQ]!;
      const mine = sidechain(li, r);
      const holders: [number, number][] = [
        [table[s + S_LEDGER]! - 1, table[s + S_RECORD]!],
        ...(more.get(slot) ?? []),
      ];
      const twin = holders.findIndex(([hl, hr]) => field(hl, hr, F.REQ) === req || mine || sidechain(hl, hr));
      if (twin === -1) {
        const list = more.get(slot) ?? [];
        list.push([li, r]);
        more.set(slot, list);
        m[r] = 1;
        continue;
      }
      const [hl, hr] = holders[twin]!;
      if (hl < settled && li >= settled) continue;
      if (!wins(li, r, hl, hr)) continue;
      masks[hl]![hr] = 0;
      m[r] = 1;
      if (twin === 0) {
        table[s + S_LEDGER] = li + 1;
        table[s + S_RECORD] = r;
      } else more.get(slot)![twin - 1] = [li, r];
    }
  }
  return masks;
}

/**
 * The ledgers of `files`, in order, for `dedupe`: a plain loop into an array of one kind, where an
 * optimised caller's `map` would hand `dedupe` another kind than the interpreter's (`kinds.ts`).
 */
export function ledgersOf(files: readonly { result: { ledger: Ledger } }[]): Ledger[] {
  const out = valueList(emptyLedger());
  for (const f of files) out.push(f.result.ledger);
  return out;
}
