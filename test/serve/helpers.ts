/**
 * Shared by the serve tests: a history built from what the repository owns (`ownedHome`), a server started in-process on
 * 127.0.0.1, and raw HTTP for the requests a well-behaved client would never send.
 */
import { appendFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import { FakeHome, jsonl } from '../../src/test-support/corpus.js';
import {
  addDemo,
  addLabRuns,
  LAB_CASES,
  LAB_FIXTURES,
  type LabCase,
  labTranscript,
  sessionIdOf,
  writeLongCodex,
} from '../../src/test-support/owned.js';
import { type RunningServer, type ServeOptions, startServer } from '../../src/views/serve/index.js';

/** The session `ownedHome` writes with more than one window of turns (`MAX_TURNS`): 120 prompts, each with a call and an answer (360 turns). */
export const LONG_CODEX = '019b2e76-d124-7592-9cac-2ec05abbca08';

/** The lab's Claude Code runs, as `ownedHome` lays them out: the id and where its transcript is. */
export const LAB_CLAUDE = Object.fromEntries(
  LAB_CASES.map((c) => {
    const path = labTranscript('claude', c);
    return [c, { id: sessionIdOf(path), rel: relative(join(LAB_FIXTURES, 'claude', c, 'home'), path) }];
  }),
) as Record<LabCase, { id: string; rel: string }>;

/**
 * A history made only of what the repository owns: every recorded lab run (Claude Code, Codex,
 * Gemini CLI, Qwen Code, Pi, Copilot, one opencode), the demo history, and one long Codex session
 * the test writes. More than 40 sessions; the shared corpus is not needed.
 */
export function ownedHome(): FakeHome {
  const home = new FakeHome();
  addLabRuns(home.dir);
  addDemo(home.dir);
  writeLongCodex(home.dir, LONG_CODEX, 120);
  return home;
}

export const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvwxyz';

export function serve(home: Pick<FakeHome, 'env'>, o: Partial<ServeOptions> = {}): Promise<RunningServer> {
  return startServer({
    env: home.env,
    plan: 'retail',
    providers: null,
    useIndex: false,
    threads: 1,
    delayMs: 500,
    bind: '127.0.0.1',
    port: 0,
    stepPort: false,
    token: TOKEN,
    ...o,
  });
}

export const base = (s: RunningServer): string => `http://127.0.0.1:${s.port}`;

export const bearer = (token = TOKEN): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** Send bytes as they are (no URL normalising) and return what came back, status line first. */
export function raw(port: number, text: string | Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, timeoutMs);
    sock.on('data', (b) => chunks.push(b));
    sock.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    sock.on('error', (err) => {
      clearTimeout(timer);
      if (chunks.length > 0) resolve(Buffer.concat(chunks).toString('latin1'));
      else reject(err);
    });
    sock.write(text);
  });
}

export const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

/** A GET with the token, its status and body (used where fetch would normalise the path). */
export function get(
  port: number,
  path: string,
  headers: Record<string, string> = bearer(),
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b) => chunks.push(b));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Wait until `check` holds, polling; fails with `what` after `ms`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** Claude Code 2.x records, trimmed to what cctop reads. */
export const claude = {
  user(sessionId: string, text: string, at = new Date().toISOString(), uuid = `u-${Math.random()}`) {
    return jsonl({
      type: 'user',
      sessionId,
      cwd: '/work/hostile',
      uuid,
      timestamp: at,
      message: { role: 'user', content: text },
    });
  },
  assistant(sessionId: string, content: unknown[], at = new Date().toISOString(), n = Math.random()) {
    return jsonl({
      type: 'assistant',
      sessionId,
      cwd: '/work/hostile',
      uuid: `a-${n}`,
      timestamp: at,
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content,
        stop_reason: 'tool_use',
        usage: { input_tokens: 4, cache_read_input_tokens: 20_000, output_tokens: 50 },
      },
    });
  },
  title(sessionId: string, title: string) {
    return jsonl({ type: 'custom-title', customTitle: title, sessionId });
  },
};

/** An agent asking its user (Claude Code's AskUserQuestion), which makes the session read as waiting. */
export function askUser(path: string, sessionId: string): void {
  appendFileSync(
    path,
    claude.assistant(sessionId, [
      {
        type: 'tool_use',
        id: `toolu_${Date.now()}`,
        name: 'AskUserQuestion',
        input: {
          questions: [
            { question: 'Ship it?', header: 'Ship', options: [{ label: 'Yes' }], multiSelect: false },
          ],
        },
      },
    ]),
  );
}
