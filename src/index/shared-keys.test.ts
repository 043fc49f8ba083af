import { describe, expect, it } from 'vitest';
import { F, RECORD_FIELDS } from '../model/ledger.js';
import { type KeptFile, type KeptFileChange, type KeptInputs, withChanges } from './kept.js';
import { sortedKeys } from './kept-rows.js';
import { type ChangedFile, LOOK_FROM_TRIPLES, sharesMessages } from './shared-keys.js';

/** Keys as numbers: each stands for the 64-bit key (high 7, low n). */
type Keys = readonly number[];

const kept = (path: string, records: number): KeptFile => ({
  path,
  provider: 'claude',
  session: `claude\u0000${path}`,
  size: 1,
  mtimeMs: 1,
  ino: 1,
  deleted: false,
  grouped: true,
  records,
  titles: null,
});

const triples = (file: number, keys: Keys): number[] => keys.flatMap((k) => [file, 7, k]);

/** Keys of a last file no test names, so the pack is large enough for both ways of the proof. */
const FILLER = Array.from({ length: LOOK_FROM_TRIPLES }, (_, i) => 200_000 + i);

/** A pack of these files' keys and the filler's, read back as the index reads it (with its sorted keys). */
function pack(given: readonly Keys[]): KeptInputs {
  const files = [...given, FILLER];
  const keys = Uint32Array.from(files.flatMap((k, i) => triples(i, k)));
  return {
    files: files.map((k, i) => kept(`f${i}`, k.length)),
    keys,
    masks: new Uint8Array(keys.length / 3).fill(1),
    summaries: [],
    index: { base: keys, sorted: () => sortedKeys(keys), patched: new Set() },
  };
}

/** The pack with file `i` patched since to hold `keys`. */
function patched(inputs: KeptInputs, i: number, keys: Keys): KeptInputs {
  const change: KeptFileChange = {
    index: i,
    file: kept(`f${i}`, keys.length),
    mask: new Uint8Array(keys.length).fill(1),
    keys: Uint32Array.from(triples(i, keys)),
  };
  return withChanges(inputs, [change])!;
}

const changed = (path: string, keys: Keys): ChangedFile => {
  const data = new Uint32Array(keys.length * RECORD_FIELDS);
  keys.forEach((k, r) => {
    data[r * RECORD_FIELDS + F.KEY_HI] = 7;
    data[r * RECORD_FIELDS + F.KEY_LO] = k;
  });
  return { file: { path }, result: { ledger: { data } } };
};

/**
 * Whether file f1, holding `now`, shares a message: asked with its keys alone (the proof searches the
 * sorted keys) and with 1,000 keys no file holds added (it then looks at every triple), which must agree.
 */
function shares(inputs: KeptInputs, now: Keys): boolean {
  const index = new Map(inputs.files.map((f, i) => [f.path, i]));
  const ask = (keys: Keys) => {
    const p = changed('f1', keys);
    return sharesMessages(inputs, index, [p], new Set([p]));
  };
  const searched = ask(now);
  const looked = ask([...now, ...Array.from({ length: 1000 }, (_, i) => 100_000 + i)]);
  expect(looked).toBe(searched);
  return searched;
}

describe('the proof that a changed file shares no message', () => {
  const three = pack([
    [1, 2],
    [3, 4, 4],
    [5, 6],
  ]);

  it('holds when the changed file holds its own messages and new ones', () => {
    expect(shares(three, [3, 4, 4, 9])).toBe(false);
  });

  it('fails when a new message of the changed file is one another file holds', () => {
    expect(shares(three, [3, 4, 6])).toBe(true);
  });

  it('fails when the changed file no longer holds a message another file holds too', () => {
    expect(shares(pack([[1, 2], [3, 2], [5]]), [3])).toBe(true);
  });

  it('holds when a message held twice by the changed file alone stays', () => {
    expect(shares(three, [4])).toBe(false);
  });

  it("reads a file patched since by its keys now, not the pack's", () => {
    // f2 now holds 8, which the pack never had…
    expect(shares(patched(three, 2, [5, 8]), [3, 4, 8])).toBe(true);
    // …and no longer holds 6, which the pack still lists under it.
    expect(shares(patched(three, 2, [5]), [3, 4, 6])).toBe(false);
    // A file new since the pack counts too.
    expect(shares(patched(three, three.files.length, [9]), [3, 4, 9])).toBe(true);
  });

  it('reads the changed file patched since by its keys then: a message it dropped that another holds fails', () => {
    const f1Patched = patched(pack([[1, 2], [3], [5, 6]]), 1, [3, 6]);
    expect(shares(f1Patched, [3])).toBe(true);
    expect(shares(f1Patched, [3, 6])).toBe(true);
    // A message it held in the pack, dropped in its patch and holds again, is still its own alone.
    expect(shares(patched(pack([[1, 2], [3, 6], [5]]), 1, [3]), [3, 6])).toBe(false);
  });

  it('gives the same answers when the sorted keys can no longer be read (another cctop kept since)', () => {
    const unread = (inputs: KeptInputs): KeptInputs => ({
      ...inputs,
      index: { ...inputs.index!, sorted: () => null },
    });
    expect(shares(unread(three), [3, 4, 4, 9])).toBe(false);
    expect(shares(unread(three), [3, 4, 6])).toBe(true);
    expect(shares(unread(patched(three, 2, [5, 8])), [3, 4, 8])).toBe(true);
    expect(shares(unread(patched(three, 2, [5])), [3, 4, 6])).toBe(false);
  });
});
