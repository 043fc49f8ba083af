import { describe, expect, it } from 'vitest';
import { EventQueue } from './queue.js';

describe('the event queue', () => {
  it('reports full at its depth and asks for more once drained to the resume mark', async () => {
    let room = 0;
    const q = new EventQueue<number>(4, 2, () => room++);
    for (let i = 0; i < 4; i++) q.push(i);
    expect(q.full).toBe(true);
    expect(await q.next()).toEqual({ done: false, value: 0 });
    expect(room, 'still above the resume mark').toBe(0);
    await q.next();
    expect(room).toBe(1);
    expect(q.highWater).toBe(4);
  });

  it('hands an event straight to a waiting consumer', async () => {
    const q = new EventQueue<string>(2, 1, () => {});
    const next = q.next();
    q.push('a');
    expect(await next).toEqual({ done: false, value: 'a' });
    expect(q.length).toBe(0);
  });

  it('delivers what was queued before the error that ended it', async () => {
    const q = new EventQueue<number>(8, 4, () => {});
    q.push(1);
    q.end(new Error('stopped'));
    expect(await q.next()).toEqual({ done: false, value: 1 });
    await expect(q.next()).rejects.toThrow('stopped');
    expect(await q.next()).toEqual({ done: true, value: undefined });
  });

  it('a waiting consumer learns of the end', async () => {
    const q = new EventQueue<number>(8, 4, () => {});
    const waiting = q.next();
    q.end();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });

  it('discards everything once the consumer has gone', async () => {
    const q = new EventQueue<number>(8, 4, () => {});
    q.push(1);
    q.drop();
    q.push(2);
    expect(q.length).toBe(0);
    q.end(new Error('not for anyone'));
    expect(await q.next()).toEqual({ done: true, value: undefined });
  });
});
