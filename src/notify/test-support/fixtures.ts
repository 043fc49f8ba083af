/**
 * What the notifier's tests are made of: sessions in the states that cross (built on the serve
 * tests' synthetic sessions, the size and shape of real ones), documents of them, a webhook receiver
 * on 127.0.0.1 that records every request and answers as a test tells it, and a fake `notify-send`
 * that records its arguments.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { NOW, syntheticSession } from '../../views/serve/test-support/sessions.js';

export { NOW };

/** A Claude Code session `id`, idle and run by a process, with `over` on top. */
export function session(id: string, over: Partial<SessionDoc> = {}): SessionDoc {
  return {
    ...syntheticSession(1),
    provider: 'claude',
    id,
    title: `the ${id} task`,
    project: `/home/dev/src/${id}`,
    state: 'idle',
    running: true,
    ...over,
  };
}

export function documentOf(sessions: SessionDoc[], atMs: number = NOW): SessionDocument {
  return {
    version: 1,
    generatedAt: new Date(atMs).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions,
    problems: [],
    totals: totalsOf(sessions),
  };
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook on 127.0.0.1 (an ephemeral port). Each request is recorded, then answered with the next
 * of `answers` (a status, or `'silent'`: never answered), and 200 once they run out.
 */
export class Receiver {
  readonly received: Received[] = [];
  answers: (number | 'silent')[] = [];
  private server: Server | null = null;
  private waiters: (() => void)[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        for (const w of this.waiters.splice(0)) w();
        const answer = this.answers.shift() ?? 200;
        if (answer === 'silent') return;
        res.writeHead(answer, answer === 301 ? { Location: 'http://127.0.0.1:9/elsewhere' } : {});
        res.end(answer < 300 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hook/secret-topic`;
  }

  /** Resolves once `n` requests have arrived. */
  async until(n: number): Promise<void> {
    while (this.received.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (s === null) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

/**
 * A `notify-send` in `dir/bin` that appends its arguments to `dir/desktop.log`, one NUL after each
 * and a newline after each run. Returns the PATH to put it on and the log.
 */
export function fakeNotifySend(dir: string): { path: string; log: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir, 'desktop.log');
  const script = join(bin, 'notify-send');
  writeFileSync(
    script,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a" >> '${log}'; done\nprintf '\\n' >> '${log}'\n`,
  );
  chmodSync(script, 0o755);
  return { path: bin, log };
}

/** The runs a fake `notify-send` recorded, each as its arguments. */
export function runsIn(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\0').slice(0, -1));
}
