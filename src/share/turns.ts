/**
 * Every turn of a session's conversation, oldest first, for the readers that want the whole of it
 * (`cctop export`, a handoff brief) rather than the newest window a view shows.
 *
 * One read of the transcript: the reader hands each turn over as it leaves its window (`TurnFeed`,
 * `model/conversation.ts`), and the visitor writes or tallies it and lets it go, so memory holds one
 * window however long the conversation is.
 *
 * Not here: rendering (the views), or reading a transcript itself (the providers, through the fence).
 */
import type { Turn, TurnFeed } from '../model/conversation.js';
import { conversationOf, type Provider } from '../providers/index.js';

/** What walking a conversation gave: the turns went to the visitor; this is the rest. */
export type Walked =
  | { kind: 'read'; turns: number }
  /**
   * The harness has no reader, the transcript is gone, or its reader failed part way: `note` says
   * which, and `turns` how many were handed over before it did.
   */
  | { kind: 'unread'; note: string; turns: number };

/** Every turn of the session whose main transcript is `path` (or of its subagent `agent`), oldest first. */
export function walkConversation(
  provider: Provider,
  path: string,
  agent: string | null,
  visit: (t: Turn) => void,
): Walked {
  let turns = 0;
  const feed: TurnFeed = {
    from: null,
    begin: () => {},
    turn: (t) => {
      turns++;
      visit(t);
    },
    end: () => {},
  };
  const c = conversationOf(provider, path, { before: null, agent, feed });
  if (!c.supported) return { kind: 'unread', note: c.note ?? 'no conversation reader', turns };
  return { kind: 'read', turns };
}
