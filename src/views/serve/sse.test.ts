import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from './sse.js';

const dec = new TextDecoder();

async function readOne(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return dec.decode(value);
}

describe('the event hub', () => {
  let hub: EventHub;
  afterEach(() => hub.close());

  it('a new stream gets the retry hint, then the current document', async () => {
    hub = new EventHub();
    hub.publish('{"v":1}', '1');
    const r = hub.open(null)!.getReader();
    expect(await readOne(r)).toBe('retry: 3000\n\n');
    expect(await readOne(r)).toBe('id: 1\nevent: sessions\ndata: {"v":1}\n\n');
  });

  it('a reconnecting page that already has the current document is not sent it again', async () => {
    hub = new EventHub(10, 60);
    hub.publish('{"v":1}', '7');
    const r = hub.open('7')!.getReader();
    await readOne(r);
    expect(await readOne(r)).toMatch(/^event: ping\n/);
  });

  it('a stream that is not read holds one document, the newest, however many are published', async () => {
    hub = new EventHub();
    const r = hub.open(null)!.getReader();
    await readOne(r);
    for (let v = 1; v <= 50; v++) hub.publish(`{"v":${v}}`, String(v));
    expect(hub.stats()).toEqual({ streams: 1, waiting: 1 });
    expect(await readOne(r)).toContain('data: {"v":50}');
    expect(hub.stats().waiting).toBe(0);
  });

  it('a quiet stream is pinged, so the page can tell silence from a dead link', async () => {
    hub = new EventHub(10, 60);
    const r = hub.open(null)!.getReader();
    await readOne(r);
    const start = Date.now();
    expect(await readOne(r)).toMatch(/^event: ping\ndata: \d+\n\n$/);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('past the stream limit a new stream is refused rather than queued', () => {
    hub = new EventHub(2);
    expect(hub.open(null)).not.toBeNull();
    expect(hub.open(null)).not.toBeNull();
    expect(hub.open(null)).toBeNull();
  });

  it('a cancelled stream is forgotten, and closing the hub ends every stream', async () => {
    hub = new EventHub();
    const a = hub.open(null)!;
    const b = hub.open(null)!.getReader();
    await a.cancel();
    expect(hub.stats().streams).toBe(1);
    await readOne(b);
    hub.close();
    expect((await b.read()).done).toBe(true);
  });
});
