import { afterEach, describe, expect, it } from 'vitest';
import { type EncodedEvent, EventHub, encodeEvent, encodeNotice, type Opening } from './sse.js';

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
    expect(hub.stats()).toEqual({ streams: 1, waiting: 1, alerts: 0 });
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

  it('budgets and alerts carry no id, so the stream still names the newest update it sent', () => {
    expect(dec.decode(encodeNotice('budgets', '{"budgets":[]}'))).toBe(
      'event: budgets\ndata: {"budgets":[]}\n\n',
    );
    expect(dec.decode(encodeNotice('alert', '{"title":"x"}'))).not.toContain('id:');
  });

  it('a stream opens with the whole document, then where the budgets stand', async () => {
    hub = new EventHub(wholeAt(() => 1));
    hub.publishBudgets(encodeNotice('budgets', '{"n":1}'));
    hub.publishBudgets(encodeNotice('budgets', '{"n":2}'));
    const r = hub.open(null)!.getReader();
    await readOne(r);
    expect(await readOne(r)).toContain('event: sessions');
    expect(await readOne(r)).toBe('event: budgets\ndata: {"n":2}\n\n');
  });

  it('alerts queue behind each other (an update replaces an update, never an alert), up to the bound', async () => {
    hub = new EventHub(() => null, 10, 15_000, 3);
    const r = hub.open(null)!.getReader();
    await readOne(r);
    for (let n = 1; n <= 5; n++) hub.publishAlert(encodeNotice('alert', `{"n":${n}}`));
    hub.publish(update(9));
    expect(hub.stats()).toEqual({ streams: 1, waiting: 1, alerts: 3 });
    expect(await readOne(r)).toContain('data: {"seq":9}');
    // The oldest two went past the bound; the newest three arrive in order.
    for (const n of [3, 4, 5]) expect(await readOne(r)).toBe(`event: alert\ndata: {"n":${n}}\n\n`);
  });

  it('an alert goes to the streams open when it fires, not to one opened later', async () => {
    hub = new EventHub(() => null, 10, 60);
    const before = hub.open(null)!.getReader();
    await readOne(before);
    hub.publishAlert(encodeNotice('alert', '{"n":1}'));
    const after = hub.open(null)!.getReader();
    await readOne(after);
    expect(await readOne(before)).toContain('event: alert');
    expect(await readOne(after)).toMatch(/^event: ping\n/);
  });

  it('a stream opened while a build reads opens with how far it is; one opened after the build ended hears nothing of it', async () => {
    hub = new EventHub(
      wholeAt(() => 1),
      10,
      60,
    );
    hub.publishProgress(encodeNotice('progress', '{"text":"a"}'), true);
    hub.publishProgress(encodeNotice('progress', '{"text":"b"}'), true);
    const during = hub.open(null)!.getReader();
    await readOne(during);
    expect(await readOne(during)).toContain('event: sessions');
    expect(await readOne(during)).toBe('event: progress\ndata: {"text":"b"}\n\n');
    hub.publishProgress(encodeNotice('progress', '{"text":null}'), false);
    expect(await readOne(during)).toBe('event: progress\ndata: {"text":null}\n\n');
    const after = hub.open(null)!.getReader();
    await readOne(after);
    expect(await readOne(after)).toContain('event: sessions');
    expect(await readOne(after)).toMatch(/^event: ping\n/);
  });
});
