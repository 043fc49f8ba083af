/**
 * The turn sink with a feed (what the search index reads conversations through): every turn, not
 * just the window; where a later read may start again; and a read started there numbering its turns
 * as a read from the top does.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TURNS, type ReadPoint, type Turn, type TurnFeed, TurnSink } from './conversation.js';

class Kept implements TurnFeed {
  began: ReadPoint | null = null;
  resume: ReadPoint | null = null;
  turns: Turn[] = [];
  constructor(readonly from: ReadPoint | null = null) {}
  begin(at: ReadPoint): void {
    this.began = at;
  }
  turn(t: Turn): void {
    this.turns.push(t);
  }
  end(resume: ReadPoint): void {
    this.resume = resume;
  }
}

/** A transcript as records at byte offsets: a person asks, the agent answers, round after round. */
function replay(sink: TurnSink, rounds: number, fromRound = 0): void {
  for (let i = fromRound; i < fromRound + rounds; i++) {
    const at = i * 200;
    sink.at(at);
    sink.push('user', 'message', '', `question ${i}`);
    sink.at(at + 100);
    const seq = sink.openAssistant('', `req-${i}`);
    sink.appendText(seq, `answer ${i}`);
  }
}

describe('a sink with a feed', () => {
  it('hands over every turn in order, the window’s and those before it, and still answers the window', () => {
    const feed = new Kept();
    const sink = new TurnSink(null, feed);
    replay(sink, MAX_TURNS);
    const c = sink.finish();
    expect(feed.turns).toHaveLength(2 * MAX_TURNS);
    expect(feed.turns.map((t) => t.seq)).toEqual(Array.from({ length: 2 * MAX_TURNS }, (_, i) => i));
    expect(c.turns).toHaveLength(MAX_TURNS);
    expect(feed.began).toEqual({ offset: 0, seq: 0 });
  });

  it('says the newest person’s message is where a later read may start', () => {
    const feed = new Kept();
    const sink = new TurnSink(null, feed);
    replay(sink, 3);
    sink.finish();
    expect(feed.resume).toEqual({ offset: 400, seq: 4 });
  });

  it('a read from that point numbers its turns as the read from the top did', () => {
    const top = new Kept();
    const whole = new TurnSink(null, top);
    replay(whole, 5);
    whole.finish();

    const feed = new Kept({ offset: 400, seq: 4 });
    const sink = new TurnSink(null, feed);
    expect(sink.startAt()).toBe(400);
    replay(sink, 3, 2);
    sink.finish();
    expect(feed.began).toEqual({ offset: 400, seq: 4 });
    expect(feed.turns).toEqual(top.turns.slice(4));
    expect(feed.resume).toEqual(top.resume);
  });

  it('a person’s message that is not the first turn its record gives is no place to start', () => {
    const feed = new Kept();
    const sink = new TurnSink(null, feed);
    sink.at(0);
    sink.push('user', 'message', '', 'first');
    sink.at(100);
    sink.push('assistant', 'reasoning', '', 'thinking');
    sink.push('user', 'message', '', 'typed while it thought');
    sink.finish();
    expect(feed.resume).toEqual({ offset: 0, seq: 0 });
  });

  it('a reader that never asks where to start reads from the top, and the feed is told so', () => {
    const feed = new Kept({ offset: 400, seq: 4 });
    const sink = new TurnSink(null, feed);
    replay(sink, 1);
    sink.finish();
    expect(feed.began).toEqual({ offset: 0, seq: 0 });
  });
});
