/**
 * A scan worker: parses the files it is sent and posts the results back, the ledger's buffer
 * transferred rather than copied. Runs the same provider code as an in-process scan.
 */
import { parentPort } from 'node:worker_threads';
import type { Problem } from '../model/problems.js';
import { readSource } from '../providers/fence.js';
import { providerById } from '../providers/index.js';
import type { ParseResult, SourceFile } from '../providers/types.js';

export interface Task {
  id: number;
  file: SourceFile;
  previous: ParseResult | null;
}

export type Reply =
  | { id: number; ok: true; result: ParseResult }
  | { id: number; ok: false; problem: Problem };

parentPort?.on('message', (batch: Task[]) => {
  const replies: Reply[] = [];
  const transfer: ArrayBuffer[] = [];
  for (const t of batch) {
    const read = readSource(providerById(t.file.provider), t.file, t.previous);
    if (read.kind === 'answered') {
      replies.push({ id: t.id, ok: true, result: read.value });
      transfer.push(read.value.ledger.data.buffer as ArrayBuffer);
    } else replies.push({ id: t.id, ok: false, problem: read.problem });
  }
  parentPort!.postMessage(replies, transfer);
});
