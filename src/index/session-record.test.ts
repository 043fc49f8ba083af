import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import type { LiveSignal } from '../model/state.js';
import { LocalTime } from '../model/time.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { documentOf, parsed } from '../test-support/parse.js';
import { docOfHeld, heldOfHead, heldOfRecord, shownOf } from './held.js';
import { asciiJson, ByteWriter, windowsMembers } from './render.js';
import {
  decodeHeads,
  decodeRecord,
  encodeRecord,
  PACK_ROW_GUESS_BYTES,
  packRecords,
  packRows,
  RECORD_VERSION,
  type SessionRecord,
  type SessionRow,
} from './session-record.js';
import { buildRecords } from './sessions.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');

/** A row's head as the kept tables read it. */
const headOf = (r: SessionRow) => decodeHeads([r])?.[0] ?? null;

/** A record whose head was edited, with its head length set again (the rest of it unchanged). */
function resized(record: Buffer, before: string): Buffer {
  const delta = record.length - before.length;
  record.writeUInt32LE(record.readUInt32LE(0) + delta, 0);
  return record;
}
const time = new LocalTime('UTC');

/** Records built from a small Claude history: a titled session with non-ASCII text, and a plain one. */
function records(home: FakeHome): SessionRecord[] {
  const a = home.write(
    home.claudeFile('-w', 'a.jsonl'),
    jsonl({
      type: 'user',
      sessionId: 'a',
      cwd: '/w/café',
      uuid: 'p-a',
      timestamp: '2026-11-29T10:00:00Z',
      message: { role: 'user', content: 'naïve ✓ "quoted" — 日本語 🙂' },
    }) + claudeResponse('1', 7, '2026-11-29T10:00:00Z', 3).replace('"sessionId":"s"', '"sessionId":"a"'),
  );
  const b = home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 9, '2026-11-20T08:00:00Z'));
  return buildRecords([parsed('claude', a), parsed('claude', b)], {
    env: home.env,
    plan: 'retail',
    book: new PriceBook(),
    time,
    nowMs: NOON,
    sinceMs: null,
    untilMs: null,
    problems: new ProblemLog(),
  });
}

describe('the session record codec', () => {
  it('a record written and read back is the same record, and shows the same session', () => {
    const home = new FakeHome();
    try {
      for (const r of records(home)) {
        const row = encodeRecord(r);
        const back = decodeRecord(row)!;
        expect(back).toEqual(r);
        const h = heldOfRecord(r);
        const k = heldOfHead(headOf(row)!);
        expect(docOfHeld(k, shownOf(k, NOON), { time, nowMs: NOON })).toEqual(
          docOfHeld(h, shownOf(h, NOON), { time, nowMs: NOON }),
        );
      }
    } finally {
      home.cleanup();
    }
  });

  it('a pack sealed in place holds the same bytes as records sealed one by one, and rows that read back', () => {
    const home = new FakeHome();
    try {
      const built = records(home);
      // One record longer than the room first made for three: the pack has to move mid-way.
      const long = { ...built[0]!, signature: 's'.repeat(3 * PACK_ROW_GUESS_BYTES) };
      for (const rs of [built, [built[1]!, long, built[0]!], []]) {
        const { pack, rows } = packRecords(rs);
        const one = rs.map(encodeRecord);
        expect(pack.equals(packRows(one))).toBe(true);
        expect(rows.map((r) => [r.key, r.record.toString('latin1'), r.crc])).toEqual(
          one.map((r) => [r.key, r.record.toString('latin1'), r.crc]),
        );
        expect(rows.map((r) => decodeRecord(r))).toEqual(rs);
      }
      expect(encodeRecord(long).record.length).toBeGreaterThan(3 * PACK_ROW_GUESS_BYTES);
    } finally {
      home.cleanup();
    }
  });

  it("keeps its text parts ASCII, whatever the transcript said, and gives back its head's strings as they were", () => {
    const home = new FakeHome();
    try {
      const r = records(home)[0]!;
      const row = encodeRecord(r);
      // Past the header of five lengths and the binary head, every byte is printable ASCII.
      const facts = 20 + row.record.readUInt32LE(0);
      expect(row.record.subarray(facts).every((b) => b >= 0x20 && b < 0x7f)).toBe(true);
      expect(row.record.toString('latin1')).toContain('\\u00ef');
      expect(headOf(row)!.project).toBe('/w/café');
      // A lone surrogate (a transcript can escape one) and a character past the first plane, in a
      // project, a signal's detail and an unpriced model: each read back unchanged.
      const odd = '/w/\ud800x🙂';
      const strange: SessionRecord = {
        ...r,
        facts: { ...r.facts, project: odd },
        live: { ...r.live, signal: { state: 'error', atMs: null, detail: odd, pendingTool: null } },
        unpriced: [[odd, 12]],
      };
      const back = decodeRecord(encodeRecord(strange))!;
      expect([back.facts.project, back.live, back.unpriced]).toEqual([odd, strange.live, [[odd, 12]]]);
    } finally {
      home.cleanup();
    }
  });

  it('every state a signal can hold, a signal without a pending tool and none at all read back as written', () => {
    const home = new FakeHome();
    try {
      const r = records(home)[1]!;
      const signals: LiveSignal[] = (['working', 'waiting', 'error', 'idle'] as const).map((state) => ({
        state,
        atMs: 1_700_000_000_123,
        detail: 'why',
        pendingTool: 'Bash',
      }));
      // Without a pending tool (absent, not null) and without a time.
      const bare: LiveSignal = { state: 'idle', atMs: null, detail: null };
      for (const signal of [...signals, bare, null]) {
        const live = { signal, mtime: 1_700_000_000_000.5, lastMs: null };
        expect(decodeRecord(encodeRecord({ ...r, live }))!.live).toStrictEqual(live);
      }
    } finally {
      home.cleanup();
    }
  });

  it('a row of another record version, or one whose bytes changed behind SQLite, is not read', () => {
    const home = new FakeHome();
    try {
      const row = encodeRecord(records(home)[0]!);
      expect(decodeRecord({ ...row, crc: row.crc ^ 1 })).toBeNull();
      const flipped = Buffer.from(row.record);
      flipped[40] = flipped[40]! ^ 0x20;
      expect(headOf({ ...row, record: flipped })).toBeNull();
      // Another version of the record, a head naming a harness cctop does not know, or one with a
      // byte more than it reads, sealed as this code seals a row: still not read.
      const text = row.record.toString('latin1');
      const headEnd = 20 + row.record.readUInt32LE(0);
      const older = Buffer.from(row.record);
      older[20] = RECORD_VERSION - 1;
      const longer = Buffer.concat([
        row.record.subarray(0, headEnd),
        Buffer.from([0]),
        row.record.subarray(headEnd),
      ]);
      longer.writeUInt32LE(row.record.readUInt32LE(0) + 1, 0);
      // As version 3 sealed it: the same parts behind a JSON head (an index kept before this one).
      const jsonHead = Buffer.from('{"v":3,"provider":"claude","id":"a"}', 'latin1');
      const asJson = Buffer.concat([row.record.subarray(0, 20), jsonHead, row.record.subarray(headEnd)]);
      asJson.writeUInt32LE(jsonHead.length, 0);
      for (const record of [
        older,
        asJson,
        Buffer.from(text.replace('claude', 'nobody'), 'latin1'),
        resized(Buffer.from(text.replace('claude', 'claudeX'), 'latin1'), text),
        longer,
      ]) {
        expect(record.equals(row.record)).toBe(false);
        expect(headOf({ ...row, record, crc: crc32(record) })).toBeNull();
      }
      // A record cut short, or whose lengths point past its end.
      const cut = row.record.subarray(0, 12 + row.record.readUInt32LE(0) + 10);
      expect(headOf({ ...row, record: Buffer.from(cut), crc: crc32(cut) })).toBeNull();
      expect(headOf(row)).not.toBeNull();
    } finally {
      home.cleanup();
    }
  });

  it('a head changed anywhere and sealed again reads as a head or as nothing, never as a throw', () => {
    const home = new FakeHome();
    try {
      const row = encodeRecord({ ...records(home)[0]!, unpriced: [['a-model-nobody-prices', 12]] });
      const headEnd = 20 + row.record.readUInt32LE(0);
      const stillRead = new Set<number>();
      // Every byte of the header and the head, set to each of three values that reach every branch
      // of the reader: a length or kind out of range, a count too large, a flag flipped.
      for (let at = 0; at < headEnd; at++) {
        for (const value of [0, 0xff, row.record[at]! ^ 0x01]) {
          const record = Buffer.from(row.record);
          record[at] = value;
          if (record.equals(row.record)) continue;
          if (headOf({ ...row, record, crc: crc32(record) }) !== null) stillRead.add(at);
        }
      }
      // The head's length and its version byte are read as nothing whatever they are changed to;
      // a changed string is another string, a changed number another number, and none throws.
      expect([0, 1, 2, 3, 20].filter((at) => stillRead.has(at))).toEqual([]);
      expect(stillRead.size).toBeGreaterThan(0);
    } finally {
      home.cleanup();
    }
  });
});

describe('printing a session', () => {
  it('prints exactly what JSON.stringify makes of the session document, live fields and windows included', () => {
    const home = new FakeHome();
    try {
      const built = records(home);
      const { rows } = packRecords(built);
      // Just built, just built and sealed into a pack, and read back from that pack: printed alike.
      const held = [
        ...built.map((r) => heldOfRecord(r)),
        ...built.map((r, i) => heldOfRecord(r, rows[i])),
        ...decodeHeads(rows)!.map(heldOfHead),
      ];
      expect(held).toHaveLength(3 * built.length);
      for (const nowMs of [NOON, NOON + 5 * 3_600_000, NOON + 40 * 86_400_000]) {
        const windows = windowsMembers(time, nowMs);
        for (const h of held) {
          const shown = shownOf(h, nowMs);
          shown.running = true;
          shown.process = { pids: [7, 9], cpu: 2.5, memory: 1024, command: 'claude --resume "x"' };
          const w = new ByteWriter(0);
          h.print(w, shown, windows(h));
          expect(w.done().toString()).toBe(asciiJson(JSON.stringify(docOfHeld(h, shown, { time, nowMs }))));
        }
      }
    } finally {
      home.cleanup();
    }
  });

  it('a session with no price has no spend windows; one with a price has them at every moment', () => {
    const home = new FakeHome();
    try {
      const unknown = home.write(
        home.claudeFile('-w', 'u.jsonl'),
        claudeResponse('3', 4, '2026-11-29T11:00:00Z').replace(
          'claude-sonnet-4-5-20250929',
          'a-model-nobody-prices',
        ),
      );
      const [u] = documentOf([parsed('claude', unknown)], { nowMs: NOON }).sessions;
      expect(u!.cost).toMatchObject({
        usd: null,
        byHour: null,
        byDay: null,
        unpriced: ['a-model-nobody-prices'],
      });
      const r = records(home)[1]!;
      const h = heldOfRecord(r);
      const d = docOfHeld(h, shownOf(h, NOON), { time, nowMs: NOON });
      expect(d.cost.usd).not.toBeNull();
      expect(d.cost.byDay!.usd).toHaveLength(31);
      // Nine days ago: in the day series, not in the last 48 hours.
      expect(d.cost.byDay!.usd[21]).toBeGreaterThan(0);
      expect(d.cost.byHour!.usd.every((u) => u === 0)).toBe(true);
    } finally {
      home.cleanup();
    }
  });
});
