/**
 * A first build fills the live picture as it goes: while the workers read a history too big for one
 * batch, the engine tells how far the reading is and hands out the sessions built so far, newest
 * first, each one as the finished picture has it; the refresh's own answer follows.
 */
import { describe, expect, it } from 'vitest';
import { INLINE_BYTES } from '../index/pool.js';
import type { SessionDocument } from '../model/document.js';
import { bigHistory } from '../test-support/big-history.js';
import { LiveSessions } from './engine.js';

/** Over the size read on one thread, so the workers read it, a few MiB per batch. */
const FILE_BYTES = 512 << 10;
const FILES = Math.ceil((INLINE_BYTES * 1.25) / FILE_BYTES);

const ids = (d: SessionDocument): string[] => d.sessions.map((s) => s.id);

describe('the live picture during a first build', () => {
  it('fills with sessions as they are built, newest first, before the answer', async () => {
    const home = bigHistory(FILES, FILE_BYTES);
    try {
      const live = new LiveSessions({
        env: home.env,
        plan: 'retail',
        providers: null,
        delayMs: 1000,
        threads: 2,
        now: () => Date.parse('2026-12-02T00:00:00Z'),
      });
      const seen: {
        files: number;
        filesTotal: number;
        bytes: number;
        bytesTotal: number;
        doc: SessionDocument;
      }[] = [];
      let updatedAfter = -1;
      live.on('building', (b) => {
        seen.push({ ...b, doc: b.document() });
      });
      live.on('update', () => {
        updatedAfter = seen.length;
      });
      const done = await live.refresh();

      // Told before the first file is read, then after each batch, and the answer only after all of them.
      expect(seen[0]).toMatchObject({ files: 0, filesTotal: FILES, bytes: 0 });
      expect(seen[0]!.doc.sessions).toEqual([]);
      expect(seen.at(-1)).toMatchObject({ files: FILES, filesTotal: FILES });
      expect(seen.at(-1)!.bytes).toBe(seen.at(-1)!.bytesTotal);
      expect(updatedAfter).toBe(seen.length);

      const counts = seen.map((s) => s.doc.sessions.length);
      // Several batches, each adding sessions: the table grows in steps, never shrinks.
      expect(new Set(counts).size).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!);

      const final = ids(done);
      expect(final).toHaveLength(FILES);
      for (const s of seen) {
        // Newest first, in the order the finished table has them.
        expect(ids(s.doc)).toEqual(final.filter((id) => ids(s.doc).includes(id)));
        for (const partial of s.doc.sessions)
          expect(partial).toEqual(done.sessions.find((d) => d.id === partial.id));
      }
      expect(ids(seen.at(-1)!.doc)).toEqual(final);
    } finally {
      home.cleanup();
    }
  }, 180_000);
});
