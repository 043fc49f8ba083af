import { describe, expect, it } from 'vitest';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import {
  type ChangesFrame,
  documentOrder,
  Follower,
  MAX_HELD_UPDATES,
  SessionMirror,
  type WholeFrame,
} from './delta.js';
import { NOW, syntheticDocument, syntheticSession } from './test-support/sessions.js';

const RUN = 'run-a';
const at = (ms: number) => new Date(NOW + ms).toISOString();

/** The update that turns `doc` into `doc` with `changed` in place of (or beside) its namesakes. */
function step(doc: SessionDocument, seq: number, changed: SessionDoc[], removed: SessionDoc[] = []) {
  const key = (s: SessionDoc) => `${s.provider}/${s.id}`;
  const out = new Set([...changed, ...removed].map(key));
  const sessions = [...doc.sessions.filter((s) => !out.has(key(s))), ...changed].sort(documentOrder);
  const next: SessionDocument = { ...doc, generatedAt: at(seq * 1000), sessions, totals: totalsOf(sessions) };
  const frame: ChangesFrame = {
    kind: 'some',
    run: RUN,
    seq,
    generatedAt: next.generatedAt,
    totals: next.totals,
    changed,
    removed: removed.map((s) => ({ provider: s.provider, id: s.id })),
    problems: null,
    collisions: null,
  };
  return { next, frame };
}

const touched = (s: SessionDoc, ms: number, title = s.title): SessionDoc => ({
  ...s,
  lastActiveAt: at(ms),
  title,
});

describe("the page's copy of the document", () => {
  it('keeps the document order when a session moves, arrives or goes', () => {
    const doc = syntheticDocument(20);
    const m = new SessionMirror();
    m.reset({ run: RUN, seq: 1, document: doc });
    const moved = touched(doc.sessions[12]!, 60_000, 'now the newest');
    // A new session older than all the others, and one with the same time as another (id decides).
    const arrived = { ...syntheticSession(99), id: 'zzz', lastActiveAt: null };
    const tie = { ...syntheticSession(50), lastActiveAt: doc.sessions[3]!.lastActiveAt, id: '0' };
    const { next, frame } = step(doc, 2, [moved, arrived, tie], [doc.sessions[5]!]);
    expect(m.apply(frame)).toEqual({ kind: 'applied' });
    expect(m.document).toEqual(next);
    expect(m.document!.sessions[0]!.title).toBe('now the newest');
    expect(m.document!.sessions.at(-1)!.id).toBe('zzz');
  });

  it('an update it already has is ignored; one past a gap, from another run, or of everything is refused', () => {
    const doc = syntheticDocument(3);
    const m = new SessionMirror();
    const { frame } = step(doc, 2, [touched(doc.sessions[2]!, 1)]);
    expect(m.apply(frame)).toEqual({ kind: 'behind', why: 'no document yet' });
    m.reset({ run: RUN, seq: 1, document: doc });
    expect(m.apply({ ...frame, seq: 3 })).toEqual({ kind: 'behind', why: 'a gap' });
    expect(m.apply({ ...frame, run: 'run-b' })).toEqual({ kind: 'behind', why: 'another run' });
    expect(m.apply({ kind: 'all', run: RUN, seq: 2 })).toEqual({ kind: 'behind', why: 'everything changed' });
    expect(m.apply({ ...frame, seq: 1 })).toEqual({ kind: 'stale' });
    expect(m.document).toBe(doc);
  });

  it('a whole document older than the copy (a slow fetch) does not replace it; one from a new run does', () => {
    const doc = syntheticDocument(3);
    const m = new SessionMirror();
    m.reset({ run: RUN, seq: 5, document: doc });
    expect(m.reset({ run: RUN, seq: 4, document: syntheticDocument(1) })).toBe(false);
    expect(m.document).toBe(doc);
    expect(m.reset({ run: 'run-b', seq: 1, document: syntheticDocument(1) })).toBe(true);
    expect(m.at).toEqual({ run: 'run-b', seq: 1 });
  });
});

describe('a page following the stream', () => {
  /** A follower whose fetches answer `serve()` after the test lets them. */
  function page(serve: () => WholeFrame) {
    const shown: SessionDocument[] = [];
    let fetches = 0;
    let release: () => void = () => {};
    const f = new Follower(
      () => {
        fetches++;
        return new Promise((resolve) => {
          release = () => resolve(serve());
        });
      },
      (d) => shown.push(d),
    );
    return { f, shown, fetches: () => fetches, release: () => release() };
  }

  it('applies updates in turn without fetching anything', () => {
    const doc = syntheticDocument(4);
    const p = page(() => {
      throw new Error('no fetch expected');
    });
    p.f.whole({ run: RUN, seq: 1, document: doc });
    const a = step(doc, 2, [touched(doc.sessions[3]!, 1)]);
    const b = step(a.next, 3, [touched(doc.sessions[2]!, 2)]);
    p.f.changes(a.frame);
    p.f.changes(b.frame);
    expect(p.fetches()).toBe(0);
    expect(p.shown.at(-1)).toEqual(b.next);
  });

  it('after a gap it fetches the whole document once, and applies what arrived meanwhile on top', async () => {
    const doc = syntheticDocument(4);
    const u2 = step(doc, 2, [touched(doc.sessions[3]!, 1)]);
    const u3 = step(u2.next, 3, [touched(doc.sessions[2]!, 2)]);
    const u4 = step(u3.next, 4, [touched(doc.sessions[1]!, 3)]);
    // The server's whole document is at 3 when the fetch reaches it.
    const p = page(() => ({ run: RUN, seq: 3, document: u3.next }));
    p.f.whole({ run: RUN, seq: 1, document: doc });
    p.f.changes(u3.frame); // 2 was lost
    p.f.changes(u4.frame); // arrives while the fetch is out
    expect(p.fetches()).toBe(1);
    p.release();
    await new Promise((r) => setTimeout(r, 0));
    expect(p.fetches()).toBe(1);
    expect(p.f.mirror.at).toEqual({ run: RUN, seq: 4 });
    expect(p.shown.at(-1)).toEqual(u4.next);
  });

  it('an update of everything makes it fetch the whole document', async () => {
    const doc = syntheticDocument(4);
    const fresh = syntheticDocument(6);
    const p = page(() => ({ run: RUN, seq: 2, document: fresh }));
    p.f.whole({ run: RUN, seq: 1, document: doc });
    p.f.changes({ kind: 'all', run: RUN, seq: 2 });
    p.release();
    await new Promise((r) => setTimeout(r, 0));
    expect(p.fetches()).toBe(1);
    expect(p.shown.at(-1)).toBe(fresh);
  });

  it(`holds at most ${MAX_HELD_UPDATES} updates during a fetch, and fetches again when it had to let some go`, async () => {
    const doc = syntheticDocument(2);
    let seq = 1;
    let current = doc;
    const frames: ChangesFrame[] = [];
    for (let i = 0; i < MAX_HELD_UPDATES + 10; i++) {
      const u = step(current, ++seq, [touched(current.sessions[1]!, i + 1)]);
      frames.push(u.frame);
      current = u.next;
    }
    let answers = 0;
    const p = page(() =>
      answers++ === 0 ? { run: RUN, seq: 1, document: doc } : { run: RUN, seq, document: current },
    );
    p.f.changes(frames[0]!); // no document yet: fetch
    for (const f of frames.slice(1)) p.f.changes(f);
    p.release();
    await new Promise((r) => setTimeout(r, 0));
    expect(p.fetches()).toBe(2);
    p.release();
    await new Promise((r) => setTimeout(r, 0));
    expect(p.f.mirror.at).toEqual({ run: RUN, seq });
    expect(p.shown.at(-1)).toEqual(current);
  });
});
