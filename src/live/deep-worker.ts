/**
 * The thread that reads one session's transcript in full for a live view (its calls, its
 * conversation), so a 90 MB transcript never blocks the keys or the redraws.
 */
import { parentPort } from 'node:worker_threads';
import { type CallLog, emptyCallLog } from '../model/calls.js';
import type { Conversation } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import { callsOf, conversationOf, providerById } from '../providers/index.js';
import type { ConversationOptions } from '../providers/types.js';

export type DeepRequest =
  | { id: number; kind: 'calls'; provider: ProviderId; main: string }
  | { id: number; kind: 'conversation'; provider: ProviderId; path: string; options: ConversationOptions };

parentPort?.on('message', (r: DeepRequest) => {
  try {
    const provider = providerById(r.provider);
    let value: CallLog | Conversation | null;
    if (r.kind === 'calls') {
      // Calls that could not be read: the report shows none rather than failing.
      const calls = callsOf(provider, r.main);
      value = calls.kind === 'answered' ? calls.value : emptyCallLog();
    } else value = provider.conversation ? conversationOf(provider, r.path, r.options) : null;
    parentPort!.postMessage({ id: r.id, ok: true, value });
  } catch (err) {
    parentPort!.postMessage({ id: r.id, ok: false, error: (err as Error).message });
  }
});
