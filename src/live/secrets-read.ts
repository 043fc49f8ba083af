/**
 * Reading one session's transcript for the secrets in it, from where the last read stopped when its
 * reader can start there: how a live view notices a credential written into a running session. Runs
 * on the reading thread (`deep-worker.ts`).
 *
 * Not here: deciding what is new (`alerts.ts`), or finding secrets (`secrets/detect.ts`).
 */
import type { ReadPoint } from '../model/conversation.js';
import { conversationOf } from '../providers/index.js';
import type { Provider } from '../providers/types.js';
import { type SecretEnds, SecretFeed } from '../secrets/feed.js';

/** What a read for secrets found, and where the next read of the grown file may start. */
export interface SecretsRead {
  secrets: SecretEnds[];
  /** Where this read really started: the top when the reader cannot start mid-file. */
  began: ReadPoint;
  resume: ReadPoint;
}

export function secretsIn(provider: Provider, path: string, from: ReadPoint | null): SecretsRead {
  const feed = new SecretFeed(from);
  const c = provider.conversation
    ? conversationOf(provider, path, { before: null, agent: null, feed })
    : { supported: false };
  // A conversation this harness cannot read holds no secret cctop could show.
  if (!c.supported) return { secrets: [], began: { offset: 0, seq: 0 }, resume: { offset: 0, seq: 0 } };
  return { secrets: feed.secrets, began: feed.began, resume: feed.resume };
}
