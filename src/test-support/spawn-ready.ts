/**
 * The two steps every real server the tests start (`postgres.ts`, `sshd.ts`) takes: find a free TCP
 * port on 127.0.0.1, and, once the server is spawned, wait until its stderr says it is ready, or
 * fail with what it said when it exits first or takes too long.
 *
 * Not here: the servers' own arguments and files, or stopping them.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (closed again; the server takes it a moment later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** What to wait for on a started server's stderr. */
export interface Readiness {
  /** The server's name in the errors (`sshd`). */
  name: string;
  /** The text its stderr holds once it is ready (`Server listening`). */
  line: string;
  /** What the error says when `waitMs` passes first (`did not listen`). */
  late: string;
  waitMs: number;
  /** Every piece of stderr, as it comes (the server's log). */
  onText: (text: string) => void;
}

/** Resolves once `child`'s stderr holds `r.line`; rejects, with its stderr, when it exits or is late. */
export function untilReady(child: ChildProcess, r: Readiness): Promise<void> {
  let said = '';
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${r.name} ${r.late}: ${said}`)), r.waitMs);
    child.stderr?.on('data', (b: Buffer) => {
      const text = b.toString();
      said += text;
      r.onText(text);
      if (said.includes(r.line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${r.name} exited (${code}): ${said}`));
    });
  });
}
