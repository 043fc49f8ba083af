import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { documentOf, parsed } from '../test-support/parse.js';
import { docOfHeld, heldOfHead, heldOfRecord, shownOf } from './held.js';
import { asciiJson, type Chunks, printSession, windowsMembers } from './render.js';
import {
  decodeHead,
  decodeRecord,
  encodeRecord,
  RECORD_VERSION,
  type SessionRecord,
} from './session-record.js';
import { buildRecords } from './sessions.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');

/** The checksum a row of these columns is sealed with (as the codec computes it). */
const reseal = (r: { head: string; facts: Buffer; facts_cost: Buffer }): number =>
  crc32(r.facts_cost, crc32(r.facts, crc32(r.head)));
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
        const k = heldOfHead(decodeHead(row)!);
        expect(docOfHeld(k, shownOf(k, NOON), { time, nowMs: NOON })).toEqual(
          docOfHeld(h, shownOf(h, NOON), { time, nowMs: NOON }),
        );
      }
    } finally {
      home.cleanup();
    }
  });

  it('keeps only ASCII, whatever the transcript said', () => {
    const home = new FakeHome();
    try {
      const row = encodeRecord(records(home)[1]!);
      for (const bytes of [row.facts, row.facts_cost])
        expect(bytes.every((b) => b >= 0x20 && b < 0x7f)).toBe(true);
    } finally {
      home.cleanup();
    }
  });

  it('a row of another record version, or one whose bytes changed behind SQLite, is not read', () => {
    const home = new FakeHome();
    try {
      const row = encodeRecord(records(home)[0]!);
      expect(decodeRecord({ ...row, crc: row.crc ^ 1 })).toBeNull();
      const flipped = Buffer.from(row.facts);
      flipped[3] = flipped[3]! ^ 0x20;
      expect(decodeHead({ ...row, facts: flipped })).toBeNull();
      // Another version of the record, sealed as this code seals a row: still not read.
      const head = row.head.replace(`"v":${RECORD_VERSION}`, '"v":0');
      expect(decodeHead({ ...row, head, crc: reseal({ ...row, head }) })).toBeNull();
      expect(decodeHead({ ...row, crc: reseal(row) })).not.toBeNull();
      // A head naming another provider than its row, or not JSON at all.
      expect(decodeHead({ ...row, provider: 'nobody' })).toBeNull();
      expect(decodeHead({ ...row, key: 'claude\u0000other' })).toBeNull();
    } finally {
      home.cleanup();
    }
  });
});

describe('printing a session', () => {
  it('prints exactly what JSON.stringify makes of the session document, live fields and windows included', () => {
    const home = new FakeHome();
    try {
      for (const nowMs of [NOON, NOON + 5 * 3_600_000, NOON + 40 * 86_400_000]) {
        const windows = windowsMembers(time, nowMs);
        for (const r of records(home)) {
          const h = heldOfRecord(r);
          const shown = shownOf(h, nowMs);
          shown.running = true;
          shown.process = { pids: [7, 9], cpu: 2.5, memory: 1024, command: 'claude --resume "x"' };
          const out: Chunks = [];
          printSession(out, h.text(), shown, windows(h.spend));
          const text = Buffer.concat(
            out.map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c)),
          ).toString();
          expect(text).toBe(asciiJson(JSON.stringify(docOfHeld(h, shown, { time, nowMs }))));
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
