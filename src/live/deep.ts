/**
 * Full reads of one session for live views, on a thread of their own: asked for when a row is
 * selected or a page opens, answered when done, never blocking input or drawing.
 *
 * The thread is ended once it has been idle for `DEEP_IDLE_MS`: reading a 90 MB transcript grows
 * its heap by a hundred megabytes or more, which a view left open all day should not keep.
 */
import { Worker } from 'node:worker_threads';
import type { CallLog } from '../model/calls.js';
import type { Conversation, ReadPoint } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import type { ConversationOptions } from '../providers/types.js';
import type { DeepRequest, SecretsRead } from './deep-worker.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/** How long the reading thread may sit idle before it is ended (it starts again in ~50 ms). */
export const DEEP_IDLE_MS = 10_000;

export class DeepReader {
  private worker: Worker | null = null;
  private next = 1;
  private pending = new Map<number, Pending>();
  private idle: NodeJS.Timeout | null = null;

  private ask<T>(request: DistributiveOmit<DeepRequest, 'id'>): Promise<T> {
    if (this.worker === null) {
      const url = import.meta.url.endsWith('.ts')
        ? new URL('../../dist/live/deep-worker.js', import.meta.url)
        : new URL('./deep-worker.js', import.meta.url);
      const w = new Worker(url);
      w.unref();
      w.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) this.idleSoon();
        if (m.ok) p.resolve(m.value);
        else p.reject(new Error(m.error));
      });
      w.on('error', (err) => {
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        this.worker = null;
      });
      this.worker = w;
    }
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker!.postMessage({ ...request, id } as DeepRequest);
    });
  }

  calls(provider: ProviderId, main: string): Promise<CallLog> {
    return this.ask({ kind: 'calls', provider, main });
  }

  conversation(
    provider: ProviderId,
    path: string,
    options: ConversationOptions,
  ): Promise<Conversation | null> {
    return this.ask({ kind: 'conversation', provider, path, options });
  }

  /** The secrets in a transcript, from `from` on where its reader can start there (`secrets/feed.ts`). */
  secrets(provider: ProviderId, path: string, from: ReadPoint | null): Promise<SecretsRead> {
    return this.ask({ kind: 'secrets', provider, path, from });
  }

  private idleSoon(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.pending.size === 0) this.close();
    }, DEEP_IDLE_MS);
    this.idle.unref();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    void this.worker?.terminate();
    this.worker = null;
  }
}
