/**
 * Replays what codex-cli 0.169.0's `codex app-server` wrote in the lab
 * (`lab/fixtures/drive/codex-app-server/*.jsonl`, recorded against the stand-in model server) into
 * one `CodexAppServer` conversation, without a process: Codex's lines are read in the order they
 * came, and what the conversation writes back is kept for the test to compare with what was sent in
 * the lab. Drive numbers its requests from 0 in the order it sends them, as the recording did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { REPO } from '../../test-support/corpus.js';
import { codex } from '../agents/codex.js';
import { CodexAppServer } from '../agents/codex-app-server.js';
import type { Event } from '../events.js';
import { type Plan, planRequest, type Request } from '../request.js';

export const CODEX_APP_SERVER_FIXTURES = join(REPO, 'lab', 'fixtures', 'drive', 'codex-app-server');

/** One recorded line: what Codex wrote (`codex`), what the lab's client sent (`cctop`), or an exit. */
export interface Recorded {
  dir: 'codex' | 'cctop' | 'exit';
  /** Which app-server process of the recording (a resumed thread is a second one). */
  process: number;
  line?: Record<string, unknown>;
  raw?: string;
}

export function recording(name: string): Recorded[] {
  return readFileSync(join(CODEX_APP_SERVER_FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Recorded);
}

/** What Codex wrote in one recording, as the lines it wrote (process 0 unless told). */
export const codexLines = (name: string, process = 0): string[] =>
  recording(name)
    .filter((r) => r.dir === 'codex' && r.process === process)
    .map((r) => (r.line !== undefined ? JSON.stringify(r.line) : (r.raw ?? '')));

export interface Replay {
  c: CodexAppServer;
  /** Everything the conversation wrote, one message each. */
  written: Record<string, unknown>[];
  host: { broke: number; settled: number };
  ended: () => boolean;
  /** Read lines; `onEvent` may answer as a caller would, as each event comes. */
  feed(lines: string[], onEvent?: (e: Event, c: CodexAppServer) => void): Event[];
}

export function codexPlan(req: Partial<Request> = {}): Plan {
  return planRequest(
    {
      agent: 'codex',
      prompt: '[lab:approve] Follow the lab script approve.',
      cwd: process.cwd(),
      permission: 'edit',
      approvals: true,
      ...req,
    },
    codex.caps,
  );
}

export function replay(req: Partial<Request> = {}, handshakeMs?: number): Replay {
  const written: Record<string, unknown>[] = [];
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') written.push(JSON.parse(l));
      done();
    },
  });
  const host = { broke: 0, settled: 0 };
  const c = new CodexAppServer(
    codexPlan(req),
    // Codex's app server returns its events from `read`; it emits none later.
    { broke: () => host.broke++, settled: () => host.settled++, emit: () => {}, ready: () => {} },
    handshakeMs,
  );
  c.begin(stdin);
  return {
    c,
    written,
    host,
    ended: () => stdin.writableEnded,
    feed(lines, onEvent) {
      const out: Event[] = [];
      for (const line of lines) {
        for (const e of c.read(line)) {
          out.push(e);
          onEvent?.(e, c);
        }
      }
      return out;
    },
  };
}
