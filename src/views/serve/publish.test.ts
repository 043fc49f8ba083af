import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LiveSessions } from '../../live/engine.js';
import type { Collision } from '../../model/collision.js';
import type { SessionChanges, SessionDoc, SessionDocument } from '../../model/document.js';
import { LocalTime } from '../../model/time.js';
import { totalsOf } from '../../model/totals.js';
import type { SessionUsage } from '../../model/usage-cells.js';
import { tempDir } from '../../test-support/corpus.js';
import {
  type AlertFrame,
  type BudgetsFrame,
  type ChangesFrame,
  SessionMirror,
  type WholeFrame,
} from './delta.js';
import { Publication, servedAlerts } from './publish.js';
import { EventHub } from './sse.js';
import { NOW, syntheticDocument } from './test-support/sessions.js';

/** The serve figure issue 14 asks for: bytes per update with one session changed, with 3,800 sessions. */
const SESSIONS = 3800;
const MAX_UPDATE_BYTES = 20 * 1024;

const dec = new TextDecoder();

/** The next frame on a stream, as bytes on the wire and its parsed data. */
async function nextFrame(
  r: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ bytes: number; event: string; data: unknown }> {
  for (;;) {
    const { value } = await r.read();
    const text = dec.decode(value);
    const m = /^id: .*\nevent: (\w+)\ndata: (.*)\n\n$/s.exec(text);
    if (m) return { bytes: value!.byteLength, event: m[1]!, data: JSON.parse(m[2]!) };
  }
}

/** The document after `change` is applied to a copy of `doc`'s session `i`, as the live picture would build it. */
function withChanged(
  doc: SessionDocument,
  i: number,
  change: (s: SessionDoc) => SessionDoc,
): SessionDocument {
  const sessions = doc.sessions.map((s, k) => (k === i ? change(s) : s));
  sessions.sort((a, b) =>
    a.lastActiveAt! < b.lastActiveAt! ? 1 : a.lastActiveAt! > b.lastActiveAt! ? -1 : 0,
  );
  return { ...doc, generatedAt: new Date(NOW + 2000).toISOString(), sessions, totals: totalsOf(sessions) };
}

/** A server's publication and hub, and a page's stream, with the first document taken. */
async function connected(doc: SessionDocument) {
  const pub = new Publication('run-a');
  pub.update(doc, { kind: 'all' });
  const hub = new EventHub((last) => pub.opening(last));
  const reader = hub.open(null)!.getReader();
  await reader.read(); // the retry hint
  const first = await nextFrame(reader);
  const mirror = new SessionMirror();
  mirror.reset(first.data as WholeFrame);
  return { pub, hub, reader, mirror, firstBytes: first.bytes };
}

describe('what an update sends', () => {
  it(`one session changing among ${SESSIONS} sends under 20 KB, and the page then holds the new document`, async () => {
    const before = syntheticDocument(SESSIONS);
    const { pub, hub, reader, mirror, firstBytes } = await connected(before);
    // Session 1234 gets a new title and a request: it moves to the top of the document.
    const after = withChanged(before, 1234, (s) => ({
      ...s,
      title: 'Renamed while the page was open',
      lastActiveAt: new Date(NOW + 1000).toISOString(),
      requests: s.requests + 1,
      state: 'working',
    }));
    const changed = after.sessions[0]!;
    hub.publish(pub.update(after, { kind: 'some', changed: [changed], removed: [] }));
    const frame = await nextFrame(reader);
    hub.close();

    console.log(
      `serve, ${SESSIONS} sessions: the whole document is ${(firstBytes / 1024).toFixed(0)} KB on the stream; an update with one session changed is ${frame.bytes} bytes (${((frame.bytes / firstBytes) * 100).toFixed(2)}%)`,
    );
    expect(frame.event).toBe('changes');
    expect(frame.bytes).toBeLessThan(MAX_UPDATE_BYTES);
    expect(mirror.apply(frame.data as ChangesFrame)).toEqual({ kind: 'applied' });
    // The served document carries the collisions the server found: none here.
    expect(mirror.document).toEqual({ ...after, collisions: [] });
    expect(mirror.document!.sessions[0]!.title).toBe('Renamed while the page was open');
  });

  it('a session that went away is removed from the page, and the totals follow', async () => {
    const before = syntheticDocument(50);
    const { pub, hub, reader, mirror } = await connected(before);
    const gone = before.sessions[7]!;
    const sessions = before.sessions.filter((s) => s !== gone);
    const after: SessionDocument = { ...before, sessions, totals: totalsOf(sessions) };
    hub.publish(
      pub.update(after, { kind: 'some', changed: [], removed: [{ provider: gone.provider, id: gone.id }] }),
    );
    const frame = await nextFrame(reader);
    hub.close();
    expect(mirror.apply(frame.data as ChangesFrame)).toEqual({ kind: 'applied' });
    expect(mirror.document).toEqual({ ...after, collisions: [] });
  });

  it('problems are sent when they change, and left out while they stay the same', async () => {
    const before = syntheticDocument(5);
    const { pub, hub, reader, mirror } = await connected(before);
    const problem = { kind: 'bad-lines' as const, path: '/home/dev/x.jsonl', count: 2, detail: 'not JSON' };
    const some: SessionChanges = { kind: 'some', changed: [before.sessions[1]!], removed: [] };
    const broken = { ...before, problems: [problem] };
    hub.publish(pub.update(broken, some));
    const first = (await nextFrame(reader)).data as ChangesFrame;
    hub.publish(pub.update({ ...broken, problems: [problem] }, some));
    const second = (await nextFrame(reader)).data as ChangesFrame;
    hub.close();
    expect(first).toMatchObject({ kind: 'some', problems: [problem] });
    expect(second).toMatchObject({ kind: 'some', problems: null });
    mirror.apply(first);
    mirror.apply(second);
    expect(mirror.document!.problems).toEqual([problem]);
  });

  it('an update that does not say what changed tells the page to fetch the whole document', async () => {
    const before = syntheticDocument(5);
    const { pub, hub, reader, mirror } = await connected(before);
    hub.publish(pub.update({ ...before, generatedAt: new Date(NOW + 5000).toISOString() }, undefined));
    const frame = await nextFrame(reader);
    hub.close();
    expect(frame.data).toEqual({ kind: 'all', run: 'run-a', seq: 2 });
    expect(mirror.apply(frame.data as ChangesFrame)).toEqual({ kind: 'behind', why: 'everything changed' });
  });

  it('the whole document is encoded once per version, however many pages ask for it', () => {
    const pub = new Publication('run-a');
    const doc = syntheticDocument(5);
    expect(pub.whole()).toBeNull();
    expect(pub.opening(null)).toBeNull();
    pub.update(doc, { kind: 'all' });
    expect(pub.whole()).toBe(pub.whole());
    expect(pub.opening(null)).toBe(pub.opening('run-a.0'));
    expect(pub.whole()).toMatchObject({
      run: 'run-a',
      seq: 1,
      tag: 'run-a.1',
      json: JSON.stringify({ ...doc, collisions: [] }),
    });
    // A page whose last event is the newest is sent nothing when it reconnects.
    expect(pub.opening('run-a.1')).toBeNull();
  });
});

/** The data of the next `event` frame (no id) on a stream. */
async function nextNotice(r: ReadableStreamDefaultReader<Uint8Array>, event: string): Promise<unknown> {
  for (;;) {
    const text = dec.decode((await r.read()).value);
    const m = /^event: (\w+)\ndata: (.*)\n\n$/s.exec(text);
    if (m && m[1] === event) return JSON.parse(m[2]!);
  }
}

describe('collisions', () => {
  const collision = (doc: SessionDocument): Collision => ({
    key: 'file:/w/app/src/parse.ts',
    level: 'file',
    repoRoot: '/w/app',
    path: '/w/app/src/parse.ts',
    sessions: doc.sessions.slice(0, 2).map((s, i) => ({
      provider: s.provider,
      id: s.id,
      title: s.title,
      project: s.project,
      wroteAt: new Date(NOW - i * 60_000).toISOString(),
      paths: ['/w/app/src/parse.ts'],
    })),
  });

  it('a change in the collisions is a numbered update of its own, and the page and the whole document then hold them', async () => {
    const before = syntheticDocument(5);
    const { pub, hub, reader, mirror } = await connected(before);
    const c = collision(before);
    hub.publish(pub.collide([c])!);
    const frame = await nextFrame(reader);
    hub.close();
    expect(frame.data).toMatchObject({ kind: 'some', seq: 2, changed: [], removed: [], collisions: [c] });
    expect(mirror.apply(frame.data as ChangesFrame)).toEqual({ kind: 'applied' });
    expect(mirror.document!.collisions).toEqual([c]);
    expect(mirror.document!.sessions).toEqual(before.sessions);
    expect(JSON.parse(pub.whole()!.json).collisions).toEqual([c]);
    // The same list again sends nothing; the next update of the sessions keeps them.
    expect(pub.collide([c])).toBeNull();
    pub.update(before, { kind: 'some', changed: [], removed: [] });
    expect(JSON.parse(pub.whole()!.json).collisions).toEqual([c]);
  });

  it('collisions found before the first document are in it', () => {
    const pub = new Publication('run-a');
    const doc = syntheticDocument(3);
    expect(pub.collide([collision(doc)])).toBeNull();
    pub.update(doc, { kind: 'all' });
    expect(JSON.parse(pub.whole()!.json).collisions).toEqual([collision(doc)]);
  });

  it('a new collision is an alert that names the file and opens its newest writer', () => {
    const doc = syntheticDocument(3);
    const c = collision(doc);
    const text = dec.decode(new Publication('run-a').collisionAlert(c));
    const frame = JSON.parse(/^event: alert\ndata: (.*)\n\n$/s.exec(text)![1]!) as AlertFrame;
    expect(frame).toMatchObject({
      kind: 'collision',
      title: '2 agents writing parse.ts',
      session: { provider: doc.sessions[0]!.provider, id: doc.sessions[0]!.id },
      tag: 'collision-file:/w/app/src/parse.ts',
    });
    expect(frame.body).toMatch(
      /^Refactor .* and Refactor .* both wrote src\/parse\.ts in app in the last 30 minutes$/,
    );
  });
});

describe('budgets and alerts beside the updates', () => {
  /** A live picture of one session that spent $30 today, and a config with a $20 daily budget. */
  function served() {
    const t = tempDir('cctop-serve-alerts-');
    const config = join(t.dir, 'config.toml');
    writeFileSync(config, '[[budget]]\nname = "daily"\nperiod = "day"\nusd = 20\n');
    const time = new LocalTime('UTC');
    const doc = syntheticDocument(3);
    const usage: SessionUsage[] = [
      {
        provider: 'claude',
        id: doc.sessions[0]!.id,
        project: '/home/dev/src/app',
        cells: [
          {
            hour: NOW - 3_600_000,
            day: time.dayNumber(NOW),
            model: 'claude-sonnet-4-5-20250929',
            requests: 40,
            tokens: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1, reasoning: null },
            usd: 30,
            firstMs: NOW - 3_600_000,
            lastMs: NOW - 60_000,
          },
        ],
      },
    ];
    const live = Object.assign(new EventEmitter(), { document: doc, usage: () => usage, localTime: time });
    const pub = new Publication('run-a');
    pub.update(doc, { kind: 'all' });
    const hub = new EventHub((last) => pub.opening(last));
    const env = { CCTOP_CONFIG: config, CCTOP_CACHE_DIR: join(t.dir, 'cache') };
    const problems: string[] = [];
    const feed = servedAlerts({
      live: live as unknown as LiveSessions,
      env,
      hub,
      publication: pub,
      onProblem: (p) => problems.push(p),
      now: () => NOW,
    });
    const stop = () => {
      feed.stop();
      hub.close();
      t.cleanup();
    };
    return { feed, hub, stop, problems };
  }

  it('a page hears where the budgets stand and the crossing, once', async () => {
    const { feed, hub, stop } = served();
    const reader = hub.open(null)!.getReader();
    feed.pass();
    const budgets = (await nextNotice(reader, 'budgets')) as BudgetsFrame;
    expect(budgets.budgets).toEqual([
      {
        name: 'daily',
        period: 'day',
        from: '2026-03-02',
        to: '2026-03-02',
        limitUsd: 20,
        spentUsd: 30,
        share: 1.5,
        level: 'over',
        project: null,
        harness: null,
      },
    ]);
    const alert = (await nextNotice(reader, 'alert')) as AlertFrame;
    expect(alert).toMatchObject({
      kind: 'budget',
      title: 'Over budget: daily',
      body: '$30.00 of $20.00 (150%) today',
      session: null,
    });
    feed.pass();
    // Nothing moved: no budgets event and no alert again; a page opening now gets the budgets.
    expect(hub.stats().alerts).toBe(0);
    const late = hub.open(null)!.getReader();
    await late.read();
    expect(await nextNotice(late, 'budgets')).toEqual(budgets);
    stop();
  });
});
