/**
 * The frames between `cctop run`/`cctop attach` and the per-user pty host (`pty-host.ts`), over the
 * host's socket in the runtime directory: one type byte, a 4-byte big-endian length, the payload
 * (terminal bytes, or a small JSON object). Frames past `MAX_FRAME_BYTES` end the connection: both
 * ends are cctop, so a larger one means something else is on the socket.
 *
 * Not here: what the host does with them.
 */

/** A frame's payload at most: a read from a pty is a few KiB; a drawn screen goes in frames of 256 KiB. */
export const MAX_FRAME_BYTES = 1 << 20;

/** The socket's name in the runtime directory. */
export const PTY_SOCKET = 'pty.sock';

/** The list of runs the host keeps beside its socket, for the process table to mark (`pty-runs.json`). */
export const PTY_RUNS_FILE = 'pty-runs.json';

/**
 * Frame types. To the host: S start, A attach, T type a line, K press a key, L list, d input bytes,
 * r resize, x detach. From the host: i the run's id and pid, d output bytes, e the agent's exit,
 * l the list, o done, n refused, x detached (another terminal took the run).
 */
export type FrameType = 'S' | 'A' | 'T' | 'K' | 'L' | 'd' | 'r' | 'x' | 'i' | 'e' | 'l' | 'o' | 'n';

export function frame(type: FrameType, payload: Buffer | string | object): Buffer {
  const body = Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Cuts a byte stream into frames; `push` returns the whole frames so far, or null on a bad one. */
export class FrameReader {
  private held: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): { type: string; body: Buffer }[] | null {
    this.held = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const out: { type: string; body: Buffer }[] = [];
    while (this.held.length >= 5) {
      const length = this.held.readUInt32BE(1);
      if (length > MAX_FRAME_BYTES) return null;
      if (this.held.length < 5 + length) break;
      out.push({ type: this.held.toString('latin1', 0, 1), body: this.held.subarray(5, 5 + length) });
      this.held = this.held.subarray(5 + length);
    }
    return out;
  }
}

/** A JSON payload as an object, or null. */
export function jsonOf(body: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v))
      : null;
  } catch {
    // Not JSON: the caller treats it as a bad frame.
    return null;
  }
}

export interface PtyRun {
  id: string;
  agent: string;
  pid: number;
  startedAt: string;
  attached: boolean;
}

/** The runs file's entries, read as untrusted (it sits in a directory only we may write, still). */
export function runsOf(v: unknown): PtyRun[] {
  if (!Array.isArray(v)) return [];
  const out: PtyRun[] = [];
  for (const r of v) {
    if (typeof r !== 'object' || r === null) continue;
    const o = Object.fromEntries(Object.entries(r));
    if (typeof o.id === 'string' && typeof o.agent === 'string' && typeof o.pid === 'number')
      out.push({
        id: o.id,
        agent: o.agent,
        pid: o.pid,
        startedAt: typeof o.startedAt === 'string' ? o.startedAt : '',
        attached: o.attached === true,
      });
  }
  return out;
}
