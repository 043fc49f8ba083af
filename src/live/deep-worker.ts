/**
 * The thread that reads one session's transcript in full for a live view (its calls, its
 * conversation, the secrets a running session wrote), so a 90 MB transcript never blocks the keys or
 * the redraws.
 */
import { parentPort } from 'node:worker_threads';
import { type CallLog, emptyCallLog } from '../model/calls.js';
import type { Conversation, ReadPoint } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import { callsOf, conversationOf, providerById } from '../providers/index.js';
import type { ConversationOptions } from '../providers/types.js';
import { type SecretsRead, secretsIn } from './secrets-read.js';

export type { SecretsRead };

export type DeepRequest =
  | { id: number; kind: 'calls'; provider: ProviderId; main: string }
  | { id: number; kind: 'conversation'; provider: ProviderId; path: string; options: ConversationOptions }
  | { id: number; kind: 'secrets'; provider: ProviderId; path: string; from: ReadPoint | null };

parentPort?.on('message', (r: DeepRequest) => {
  try {
    const provider = providerById(r.provider);
    let value: CallLog | Conversation | SecretsRead | null;
    switch (r.kind) {
      case 'calls': {
        // Calls that could not be read: the report shows none rather than failing.
        const calls = callsOf(provider, r.main);
        value = calls.kind === 'answered' ? calls.value : emptyCallLog();
        break;
      }
      case 'conversation':
        value = provider.conversation ? conversationOf(provider, r.path, r.options) : null;
        break;
      case 'secrets':
        value = secretsIn(provider, r.path, r.from);
        break;
    }
    parentPort!.postMessage({ id: r.id, ok: true, value });
  } catch (err) {
    parentPort!.postMessage({ id: r.id, ok: false, error: (err as Error).message });
  }
});
