/**
 * Talking to the pty host (`pty-host.ts`): reaching it, starting it on demand, one-off asks (list,
 * type a line, press a key), and holding a person's terminal on a run (`cctop run`, `cctop attach`):
 * raw mode, the agent's bytes to the screen and the keys to the agent, the size as it changes, the
 * detach key, and the agent's exit code as the result.
 *
 * Not here: the host's side, or which session a run is (the process table ties its pid to one).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../providers/types.js';
import { runtimeDir } from './dir.js';
import { FrameReader, frame, jsonOf, PTY_SOCKET } from './pty-wire.js';

// Reading the list of runs needs none of this module's socket: it lives apart (`pty-runs.ts`).
export { ptyRuns } from './pty-runs.js';

/** How long a host started on demand may take to listen (a node start on a busy machine). */
export const HOST_START_MS = 10_000;

/** How long a one-off ask (list, type, key) may wait for the host's answer. */
const ASK_MS = 5_000;

/** The detach key: Ctrl-\ then d, as tmux's prefix then d. Ctrl-\ then anything else goes through. */
export const DETACH_PREFIX = 0x1c;
export const DETACH_KEY = 0x64;

/**
 * Written when this terminal lets go of a running agent: the modes a TUI may have turned on (mouse
 * reports, bracketed paste, the alternate screen, a hidden cursor, colours) turned off again, so the
 * shell the person returns to works. An agent that exits restores its own.
 */
export const LEAVE_MODES =
  '\u001b[?1000l\u001b[?1002l\u001b[?1003l\u001b[?1006l\u001b[?2004l\u001b[?1049l\u001b[?25h\u001b[0m\r\n';

export type Reached = { kind: 'ok'; sock: Socket } | { kind: 'refused'; why: string };

function dial(path: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(null));
  });
}

/** The host's socket, starting the host when `start` and none answers. */
export async function reachHost(env: Env, start: boolean): Promise<Reached> {
  const dir = runtimeDir(env);
  if (dir.kind === 'refused')
    return { kind: 'refused', why: `the runtime directory ${dir.path} is refused: ${dir.why}` };
  const path = join(dir.path, PTY_SOCKET);
  const first = await dial(path);
  if (first) return { kind: 'ok', sock: first };
  if (!start) return { kind: 'refused', why: 'no agent runs under cctop run' };
  const bin = fileURLToPath(new URL('./pty-host-bin.js', import.meta.url));
  const child = spawn(process.execPath, [bin], { detached: true, stdio: 'ignore', env: { ...env } });
  child.unref();
  const deadline = Date.now() + HOST_START_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const s = existsSync(path) ? await dial(path) : null;
    if (s) return { kind: 'ok', sock: s };
  }
  return { kind: 'refused', why: `the pty host did not start within ${HOST_START_MS} ms` };
}

/** One ask and its first answer frame. */
export async function ask(
  env: Env,
  type: 'T' | 'K' | 'L',
  body: object,
): Promise<
  { type: string; body: Record<string, unknown> | unknown[] } | { type: 'n'; body: { why: string } }
> {
  const r = await reachHost(env, false);
  if (r.kind === 'refused') return { type: 'n', body: { why: r.why } };
  return new Promise((resolve) => {
    const reader = new FrameReader();
    const timer = setTimeout(() => {
      r.sock.destroy();
      resolve({ type: 'n', body: { why: `the pty host did not answer within ${ASK_MS} ms` } });
    }, ASK_MS);
    r.sock.on('data', (chunk) => {
      const f = reader.push(chunk)?.[0];
      if (!f) return;
      clearTimeout(timer);
      r.sock.end();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(f.body.toString('utf8'));
      } catch {
        // A frame that is not JSON: answered as nothing.
      }
      resolve({ type: f.type, body: Array.isArray(parsed) ? parsed : (jsonOf(f.body) ?? {}) });
    });
    r.sock.write(frame(type, body));
  });
}

export interface HeldEnd {
  kind: 'exited' | 'detached' | 'refused' | 'lost';
  code: number;
  why: string;
  id: string | null;
}

/**
 * Hold this terminal on a run: `first` is the start or attach frame. Resolves when the agent exits
 * (its code), the person detaches, another terminal takes the run, or the host is lost.
 */
export function hold(
  sock: Socket,
  first: Buffer,
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
): Promise<HeldEnd> {
  return new Promise((resolve) => {
    const reader = new FrameReader();
    let id: string | null = null;
    let prefix = false;
    let done = false;
    const size = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
    const finish = (end: Omit<HeldEnd, 'id'>) => {
      if (done) return;
      done = true;
      stdin.off('data', onKeys);
      stdout.off('resize', onResize);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      if (end.kind !== 'exited') stdout.write(LEAVE_MODES);
      sock.destroy();
      resolve({ ...end, id });
    };
    const onKeys = (b: Buffer) => {
      const out: number[] = [];
      for (const byte of b) {
        if (prefix) {
          prefix = false;
          if (byte === DETACH_KEY) {
            if (out.length > 0) sock.write(frame('d', Buffer.from(out)));
            sock.write(frame('x', {}));
            return;
          }
          out.push(DETACH_PREFIX);
        }
        if (byte === DETACH_PREFIX) prefix = true;
        else out.push(byte);
      }
      if (out.length > 0) sock.write(frame('d', Buffer.from(out)));
    };
    const onResize = () => sock.write(frame('r', size()));
    sock.on('data', (chunk) => {
      const frames = reader.push(chunk);
      if (frames === null)
        return finish({ kind: 'lost', code: 1, why: 'the pty host sent something unreadable' });
      for (const f of frames) {
        const o = f.type === 'd' ? null : (jsonOf(f.body) ?? {});
        if (f.type === 'd') stdout.write(f.body);
        else if (f.type === 'i') id = typeof o?.id === 'string' ? o.id : null;
        else if (f.type === 'e') {
          const code = typeof o?.code === 'number' ? o.code : 1;
          const signal = typeof o?.signal === 'number' ? o.signal : 0;
          finish({ kind: 'exited', code: signal > 0 ? 128 + signal : code, why: '' });
        } else if (f.type === 'x')
          finish({ kind: 'detached', code: 0, why: typeof o?.why === 'string' ? o.why : 'detached' });
        else if (f.type === 'n')
          finish({ kind: 'refused', code: 1, why: typeof o?.why === 'string' ? o.why : 'refused' });
      }
    });
    sock.on('close', () => finish({ kind: 'lost', code: 1, why: 'the pty host went away' }));
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', onKeys);
    stdin.resume();
    stdout.on('resize', onResize);
    sock.write(first);
  });
}
