/**
 * A scan worker: parses the files it is sent and posts the results back, the ledger's buffer
 * transferred rather than copied. Runs the same provider code as an in-process scan.
 */
import { parentPort } from 'node:worker_threads';
import { describeFsError } from '../model/problems.js';
import { providerById } from '../providers/index.js';
import type { ParseResult, SourceFile } from '../providers/types.js';

export interface Task {
  id: number;
  file: SourceFile;
  previous: ParseResult | null;
}

export type Reply =
  | { id: number; ok: true; result: ParseResult }
  | { id: number; ok: false; code: string | null; detail: string };

parentPort?.on('message', (batch: Task[]) => {
  const replies: Reply[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const t of batch) {
    try {
      const result = providerById(t.file.provider).parse(t.file, t.previous);
      replies.push({ id: t.id, ok: true, result });
      transfer.push(result.ledger.data.buffer as ArrayBuffer);
    } catch (err) {
      replies.push({
        id: t.id,
        ok: false,
        code: (err as NodeJS.ErrnoException).code ?? null,
        detail: describeFsError(err),
      });
    }
  }
  parentPort!.postMessage(replies, transfer);
});
