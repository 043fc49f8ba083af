import { describe, expect, it } from 'vitest';
import type { SessionDoc } from '../model/document.js';
import { StateCrossings } from './crossings.js';
import { session } from './test-support/fixtures.js';

const keyOf = (s: SessionDoc) => `${s.provider}:${s.id}`;
const idle = session('a');
const waiting = session('a', { state: 'waiting', pendingTool: 'Bash' });
const probably = session('a', { state: 'working', inferred: 'probably-waiting', pendingTool: 'Bash' });
const error = session('a', { state: 'error', stateDetail: 'API Error: 529 overloaded' });
const working = session('a', { state: 'working' });

/** What each update tells, as `into` words, one list per update. */
function told(sequence: SessionDoc[][]): string[][] {
  const c = new StateCrossings(keyOf);
  return sequence.map((sessions) => c.update(sessions).map((x) => `${x.session.id} ${x.into}`));
}

describe('state crossings', () => {
  it('a session that crosses into waiting is told once, not while it stays there', () => {
    expect(told([[idle], [waiting], [waiting], [waiting]])).toEqual([[], ['a waiting'], [], []]);
  });

  it('a session seen for the first time is not told, whatever its state', () => {
    expect(told([[waiting]])).toEqual([[]]);
    expect(told([[error], [error]])).toEqual([[], []]);
  });

  it('a session that left the state and came back is told again', () => {
    expect(told([[idle], [waiting], [working], [waiting], [idle], [error]])).toEqual([
      [],
      ['a waiting'],
      [],
      ['a waiting'],
      [],
      ['a error'],
    ]);
  });

  it('an inferred wait that the agent then confirms is the same wait, told once', () => {
    const c = new StateCrossings(keyOf);
    c.update([idle]);
    expect(c.update([probably]).map((x) => [x.into, x.probably])).toEqual([['waiting', true]]);
    expect(c.update([waiting])).toEqual([]);
  });

  it('a wait that ends on an error is told as the error', () => {
    expect(told([[idle], [waiting], [error]])).toEqual([[], ['a waiting'], ['a error']]);
  });

  it('a session gone from the picture and back is seen for the first time again', () => {
    expect(told([[idle], [], [waiting]])).toEqual([[], [], []]);
  });

  it('a deleted transcript is never told', () => {
    expect(told([[idle], [session('a', { state: 'waiting', deleted: true })]])).toEqual([[], []]);
  });

  it('each session crosses on its own', () => {
    const b = (over: Partial<SessionDoc>) => session('b', over);
    expect(
      told([
        [idle, b({})],
        [waiting, b({})],
        [waiting, b({ state: 'waiting' })],
      ]),
    ).toEqual([[], ['a waiting'], ['b waiting']]);
  });
});
