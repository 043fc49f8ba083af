import { describe, expect, it } from 'vitest';
import { CallCollector, MAX_CALLS } from './calls.js';

const bash = (id: string | null, command: string, ms = 0) => ({
  id,
  origin: 'main',
  name: 'Bash',
  input: { command },
  ms,
  access: null,
});

describe('the call collector', () => {
  it('records under one key are one request, sized by the fullest copy', () => {
    const c = new CallCollector('before');
    c.measure(1, 1_000, 'msg_1');
    c.measure(2, 1_200, 'msg_1');
    c.measure(3, 2_000, 'msg_2');
    c.measure(4, 2_100, null);
    c.measure(5, 2_100, null);
    expect(c.log.requests.map((r) => r.prompt)).toEqual([1_200, 2_000, 2_100, 2_100]);
  });

  it('a call written again under its id is the same call, answered or not', () => {
    const c = new CallCollector('before');
    c.measure(1, 1_000, 'msg_1');
    c.call(bash('t1', 'ls'));
    c.call(bash('t1', 'ls'));
    c.result('t1', 2, false, 'a', null);
    c.call(bash('t1', 'ls'));
    expect(c.log.calls).toHaveLength(1);
  });

  it('a call is charged by the first request after its result, not by one it was still running through', () => {
    const c = new CallCollector('before');
    c.measure(1, 1_000, 'msg_1');
    c.call(bash('t1', 'npm run dev &'));
    c.measure(2, 1_100, 'msg_2');
    c.result('t1', 3, false, 'ready', null);
    c.measure(4, 1_900, 'msg_3');
    expect(c.log.calls[0]!.growth).toBe(900);
  });

  it('a compaction between a call and the next request leaves the call without a growth', () => {
    const c = new CallCollector('after');
    c.call(bash('t1', 'cat big.log'));
    c.measure(1, 150_000, null);
    c.result('t1', 2, false, '…', null);
    c.compaction(3);
    c.measure(4, 20_000, null);
    expect(c.log.calls[0]!.growth).toBeNull();
    expect(c.log.compactions).toEqual([3]);
  });

  it('past the bound the oldest calls are dropped and counted', () => {
    const c = new CallCollector('before');
    for (let i = 0; i < MAX_CALLS + 3; i++) c.call(bash(null, `echo ${i}`));
    expect(c.log.calls).toHaveLength(MAX_CALLS);
    expect(c.log.dropped).toBe(3);
    expect(c.log.calls[0]!.detail).toBe('echo 3');
  });
});
