import { afterEach, describe, expect, it } from 'vitest';
import { type EncodedEvent, EventHub, encodeEvent, type Opening } from './sse.js';

const dec = new TextDecoder();

async function readOne(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return dec.decode(value);
}

/** A stand-in for the publication: the whole document `{"v":n}` under id `n`, skipped when the client has it. */
function wholeAt(id: () => number): Opening {
  return (last) => (last === String(id()) ? null : encodeEvent('sessions', String(id()), `{"v":${id()}}`));
}

const update = (n: number): EncodedEvent => encodeEvent('changes', String(n), `{"seq":${n}}`);

describe('the event hub', () => {
  let hub: EventHub;
  afterEach(() => hub.close());

  it('a new stream gets the retry hint, then the whole document', async () => {
    hub = new EventHub(wholeAt(() => 1));
    const r = hub.open(null)!.getReader();
    expect(await readOne(r)).toBe('retry: 3000\n\n');
    expect(await readOne(r)).toBe('id: 1\nevent: sessions\ndata: {"v":1}\n\n');
  });

  it('a reconnecting page that already has the current document is not sent it again', async () => {
    hub = new EventHub(
      wholeAt(() => 7),
      10,
      60,
    );
    const r = hub.open('7')!.getReader();
    await readOne(r);
    expect(await readOne(r)).toMatch(/^event: ping\n/);
  });

  it('an update goes to every open stream as it is published', async () => {
    hub = new EventHub(() => null);
    const a = hub.open(null)!.getReader();
    const b = hub.open(null)!.getReader();
    await readOne(a);
    await readOne(b);
    hub.publish(update(2));
    expect(await readOne(a)).toBe('id: 2\nevent: changes\ndata: {"seq":2}\n\n');
    expect(await readOne(b)).toBe('id: 2\nevent: changes\ndata: {"seq":2}\n\n');
  });

  it('a stream that is not read holds one frame, the newest, however many are published', async () => {
    hub = new EventHub(() => null);
    const r = hub.open(null)!.getReader();
    await readOne(r);
    for (let v = 1; v <= 50; v++) hub.publish(update(v));
    expect(hub.stats()).toEqual({ streams: 1, waiting: 1 });
    // The page sees 50 after whatever it had last, and catches up with one fetch.
    expect(await readOne(r)).toContain('data: {"seq":50}');
    expect(hub.stats().waiting).toBe(0);
  });

  it('a quiet stream is pinged, so the page can tell silence from a dead link', async () => {
    hub = new EventHub(() => null, 10, 60);
    const r = hub.open(null)!.getReader();
    await readOne(r);
    const start = Date.now();
    expect(await readOne(r)).toMatch(/^event: ping\ndata: \d+\n\n$/);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('past the stream limit a new stream is refused rather than queued', () => {
    hub = new EventHub(() => null, 2);
    expect(hub.open(null)).not.toBeNull();
    expect(hub.open(null)).not.toBeNull();
    expect(hub.open(null)).toBeNull();
  });

  it('a cancelled stream is forgotten, and closing the hub ends every stream', async () => {
    hub = new EventHub(() => null);
    const a = hub.open(null)!;
    const b = hub.open(null)!.getReader();
    await a.cancel();
    expect(hub.stats().streams).toBe(1);
    await readOne(b);
    hub.close();
    expect((await b.read()).done).toBe(true);
  });
});
