import { describe, expect, it } from 'vitest';
import { MAX_TURNS, TurnSink } from './conversation.js';

describe('the turn window', () => {
  it('turns kept off the front keep their sequence numbers', () => {
    const sink = new TurnSink();
    for (let i = 0; i < MAX_TURNS + 3; i++) sink.push('user', 'message', 't', `turn ${i}`);
    const c = sink.finish();
    expect(c.turns).toHaveLength(MAX_TURNS);
    expect(c.earlier).toBe(3);
    expect(c.turns[0]).toMatchObject({ seq: 3, text: 'turn 3' });
  });

  it('a before window ends where it was asked to, the same size and with the same count before it', () => {
    const sink = new TurnSink(MAX_TURNS + 2);
    for (let i = 0; i < MAX_TURNS + 5; i++) sink.push('user', 'message', 't', `turn ${i}`);
    const c = sink.finish();
    expect(c.turns).toHaveLength(MAX_TURNS);
    expect(c.earlier).toBe(2);
    expect(c.turns[0]!.seq).toBe(2);
    expect(c.turns.at(-1)!.seq).toBe(MAX_TURNS + 1);
  });
});
