import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
import { snapshotIn } from '../test-support/snapshot.js';
import { TAIL_HASH_BYTES, TAIL_HASH_PREFIX, tailHash } from './refresh.js';
import { INDEX_FILE } from './store.js';

/**
 * CRC-32's own polynomial as a change (its 33 bits in the order zlib reads a byte's bits, low first):
 * XORed into bytes anywhere, the bytes' CRC-32 stays the same.
 */
const CRC32_BLIND = [0x41, 0x06, 0x71, 0xdb, 0x01];

describe('the proof that a grown transcript only grew', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const snap = () => snapshotIn(home.env, { useIndex: true, nowMs: Date.parse('2026-11-29T12:00:00Z') });

  const lines = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => claudeResponse(`m${from + i}`, 5, '2026-11-29T10:00:00Z', 10)).join(
      '',
    );

  it('a rewrite that keeps the last bytes CRC-32 the same is still caught', () => {
    const path = home.write(join(home.dir, 'a.jsonl'), lines(0, 60));
    const size = statSync(path).size;
    const before = tailHash(path, size);
    const bytes = readFileSync(path);
    const at = size - 100;
    for (const [i, x] of CRC32_BLIND.entries()) bytes[at + i]! ^= x;
    // The forged change is one CRC-32 cannot see…
    expect(crc32(bytes.subarray(size - TAIL_HASH_BYTES))).toBe(
      crc32(readFileSync(path).subarray(size - TAIL_HASH_BYTES)),
    );
    writeFileSync(path, bytes);
    // …and the tail hash sees it.
    expect(tailHash(path, size)).not.toBe(before);
    expect(tailHash(path, size)?.startsWith(TAIL_HASH_PREFIX)).toBe(true);
  });

  it('a transcript whose last line before where reading stopped was rewritten, then grew, is read again from the start', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), lines(0, 3));
    const ino = statSync(path).ino;
    expect((await snap()).document.sessions[0]!.tokens.output).toBe(15);
    // Written in place (same file, same inode), its last line's tokens changed, then one more line.
    const text = readFileSync(path, 'utf8');
    const cut = text.lastIndexOf('"output_tokens":5');
    writeFileSync(path, `${text.slice(0, cut)}"output_tokens":7${text.slice(cut + 17)}`);
    appendFileSync(path, lines(3, 1));
    expect(statSync(path).ino).toBe(ino);
    const s = await snap();
    expect(s.stats).toMatchObject({ read: 1, tailed: 0 });
    expect(s.document.sessions[0]!.tokens.output).toBe(22);
  });

  it('a tail hash an older cctop stored (a SHA-1) is not taken for a match: the file is read once from the start', async () => {
    const path = home.write(home.claudeFile('-w', 'a.jsonl'), lines(0, 2));
    await snap();
    const db = new Database(join(home.env.CCTOP_CACHE_DIR!, INDEX_FILE));
    const stored = () =>
      (db.prepare('SELECT tail_hash AS h FROM files WHERE path = ?').get(path) as { h: string }).h;
    expect(stored().startsWith(TAIL_HASH_PREFIX)).toBe(true);
    db.prepare('UPDATE files SET tail_hash = ? WHERE path = ?').run('2jmj7l5rSw0yVb/vlWAYkK/YBwk=', path);
    appendFileSync(path, lines(2, 1));
    const s = await snap();
    expect(s.stats).toMatchObject({ read: 1, tailed: 0 });
    expect(s.document.sessions[0]!.tokens.output).toBe(15);
    expect(stored().startsWith(TAIL_HASH_PREFIX)).toBe(true);
    appendFileSync(path, lines(3, 1));
    expect((await snap()).stats).toMatchObject({ read: 0, tailed: 1 });
    db.close();
  });
});
