/**
 * The per-user pty host: the background process that holds the agents `cctop run` starts, so that
 * closing the terminal they were started in does not end them. It listens on `pty.sock` in the
 * private runtime directory (the directory is checked as `dir.ts` checks it; the socket is 0600), starts
 * each agent on a pty of its own, keeps its screen as a terminal would (`screen.ts`, to draw it whole
 * on a terminal that attaches later), and passes bytes between the pty and whichever one terminal
 * is attached. A second attach takes the run from the first, as tmux does. It types lines and keys
 * for `cctop send`/`stop`, and writes the list of its runs beside the socket for the process table.
 * It exits once its last agent has.
 *
 * Started on demand by `cctop run` (`pty-client.ts`); only the same user can reach the socket.
 * Not here: the person's terminal (raw mode, the detach key), which is the client's.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { ENTER_AFTER_MS } from '../act/typing.js';
import { runtimeDir } from './dir.js';
import { FrameReader, frame, jsonOf, PTY_RUNS_FILE, PTY_SOCKET, type PtyRun } from './pty-wire.js';
import { HeldScreen } from './screen.js';

/** The size a pty starts at when the starting terminal does not say. */
const DEFAULT_SIZE = { cols: 80, rows: 24 };

/** The screen drawn on an attaching terminal goes in frames of at most this (`MAX_FRAME_BYTES` is 1 MiB). */
const DRAWN_FRAME_BYTES = 256 * 1024;

type Pty = import('@lydell/node-pty').IPty;

interface Held {
  id: string;
  agent: string;
  pty: Pty;
  startedAt: string;
  screen: HeldScreen;
  client: Socket | null;
  /**
   * While an attach's screen is being written out: the output that came after it, sent once the
   * screen is (so the terminal gets neither a gap nor a repeat).
   */
  waiting: Buffer[] | null;
  size: { cols: number; rows: number };
}

const num = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 10_000 ? v : fallback;
const strs = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
const envOf = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
};

/** One connection: a terminal attached to a run, or a one-off ask (list, type, key). */
interface Conn {
  sock: Socket;
  mine: Held | null;
}

class PtyHost {
  readonly runs = new Map<string, Held>();
  readonly server = createServer((sock) => this.connect(sock));

  constructor(
    private readonly lib: typeof import('@lydell/node-pty'),
    private readonly runsFile: string,
    private readonly done: () => void,
  ) {}

  list(): PtyRun[] {
    return [...this.runs.values()].map((r) => ({
      id: r.id,
      agent: r.agent,
      pid: r.pty.pid,
      startedAt: r.startedAt,
      attached: r.client !== null,
    }));
  }

  /** The list beside the socket, replaced whole so a reader never sees half of it. */
  publish(): void {
    const tmp = `${this.runsFile}.${process.pid}`;
    try {
      writeFileSync(tmp, JSON.stringify(this.list()), { mode: 0o600 });
      renameSync(tmp, this.runsFile);
    } catch {
      // The runtime directory was removed under the host (a logout clears it): nothing to publish
      // to, and the host must go on serving its agents and end with them.
    }
  }

  private find(o: Record<string, unknown>): Held | undefined {
    return [...this.runs.values()].find((r) => r.pty.pid === o.pid || r.id === o.id);
  }

  private connect(sock: Socket): void {
    const reader = new FrameReader();
    const c: Conn = { sock, mine: null };
    sock.on('data', (chunk) => {
      const frames = reader.push(chunk);
      if (frames === null) sock.destroy();
      else for (const f of frames) this.onFrame(c, f.type, f.body);
    });
    const gone = () => {
      if (c.mine?.client === sock) {
        c.mine.client = null;
        this.publish();
      }
      c.mine = null;
    };
    sock.on('close', gone);
    sock.on('error', gone);
  }

  private onFrame(c: Conn, type: string, body: Buffer): void {
    const send = (b: Buffer) => {
      if (!c.sock.destroyed) c.sock.write(b);
    };
    if (type === 'd') {
      c.mine?.pty.write(body.toString('utf8'));
      return;
    }
    const o = jsonOf(body) ?? {};
    const r = this.find(o);
    switch (type) {
      case 'S':
        this.start(c, o);
        return;
      case 'A':
        if (r) this.attach(c, r, num(o.cols, r.size.cols), num(o.rows, r.size.rows));
        else send(frame('n', { why: 'no run of this cctop has that id' }));
        return;
      case 'T':
        if (!r || typeof o.text !== 'string') send(frame('n', { why: 'no run of this cctop has that id' }));
        else {
          r.pty.write(o.text);
          setTimeout(() => {
            r.pty.write('\r');
            send(frame('o', {}));
          }, ENTER_AFTER_MS);
        }
        return;
      case 'K':
        if (!r || typeof o.key !== 'string') send(frame('n', { why: 'no run of this cctop has that id' }));
        else {
          r.pty.write(o.key);
          send(frame('o', {}));
        }
        return;
      case 'L':
        send(frame('l', this.list()));
        return;
      case 'r':
        if (c.mine) {
          c.mine.size = { cols: num(o.cols, c.mine.size.cols), rows: num(o.rows, c.mine.size.rows) };
          c.mine.screen.resize(c.mine.size.cols, c.mine.size.rows);
          c.mine.pty.resize(c.mine.size.cols, c.mine.size.rows);
        }
        return;
      case 'x':
        if (c.mine?.client === c.sock) c.mine.client = null;
        c.mine = null;
        c.sock.end(frame('x', { why: 'detached' }));
        this.publish();
        return;
      default:
        c.sock.destroy();
    }
  }

  private start(c: Conn, o: Record<string, unknown>): void {
    const agent = typeof o.agent === 'string' ? o.agent : '';
    const size = { cols: num(o.cols, DEFAULT_SIZE.cols), rows: num(o.rows, DEFAULT_SIZE.rows) };
    let pty: Pty;
    try {
      pty = this.lib.spawn(agent, strs(o.args), {
        ...size,
        cwd: typeof o.cwd === 'string' ? o.cwd : process.cwd(),
        env: envOf(o.env),
        name: typeof o.term === 'string' ? o.term : 'xterm-256color',
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      c.sock.end(frame('n', { why: `${agent} could not be started: ${why}` }));
      return;
    }
    const r: Held = {
      id: randomBytes(4).toString('hex'),
      agent,
      pty,
      startedAt: new Date().toISOString(),
      // A flood is read only as fast as the screen takes it: the agent waits, as on a slow terminal.
      screen: new HeldScreen(size.cols, size.rows, (what) => (what === 'pause' ? pty.pause() : pty.resume())),
      client: c.sock,
      waiting: null,
      size,
    };
    this.runs.set(r.id, r);
    c.mine = r;
    pty.onData((d) => this.output(r, Buffer.from(d, 'utf8')));
    pty.onExit((e) => this.ended(r, e.exitCode, e.signal ?? 0));
    c.sock.write(frame('i', { id: r.id, pid: pty.pid }));
    this.publish();
  }

  private output(r: Held, b: Buffer): void {
    r.screen.write(b);
    if (r.waiting) r.waiting.push(b);
    else if (r.client && !r.client.destroyed) r.client.write(frame('d', b));
  }

  private ended(r: Held, code: number, signal: number): void {
    this.runs.delete(r.id);
    r.screen.dispose();
    if (r.client && !r.client.destroyed) r.client.end(frame('e', { code, signal }));
    this.publish();
    if (this.runs.size === 0) {
      rmSync(this.runsFile, { force: true });
      // Not `server.close()` alone: it waits for every connection, and a stray one would keep the
      // host alive with nothing to hold. The exit frame above is flushed first.
      this.server.close();
      setImmediate(() => this.done());
    }
  }

  /**
   * Take the run to this terminal (from any other, as tmux does): its screen drawn whole, at this
   * terminal's size, then the agent's output as it comes.
   */
  private attach(c: Conn, r: Held, cols: number, rows: number): void {
    if (r.client && r.client !== c.sock) r.client.end(frame('x', { why: 'another terminal attached' }));
    r.client = c.sock;
    c.mine = r;
    c.sock.write(frame('i', { id: r.id, pid: r.pty.pid }));
    const waiting: Buffer[] = [];
    r.waiting = waiting;
    r.screen.snapshot(cols, rows, (drawn) => {
      // Another terminal attached meanwhile: its own snapshot follows, and the output is its.
      if (r.waiting !== waiting) return;
      r.waiting = null;
      if (r.client !== c.sock || c.sock.destroyed) return;
      const bytes = Buffer.from(drawn, 'utf8');
      for (let at = 0; at < bytes.length; at += DRAWN_FRAME_BYTES)
        c.sock.write(frame('d', bytes.subarray(at, at + DRAWN_FRAME_BYTES)));
      for (const b of waiting) c.sock.write(frame('d', b));
    });
    // The agent redraws for a new size; what it draws comes after the snapshot, resized first.
    r.size = { cols, rows };
    r.pty.resize(cols, rows);
    this.publish();
  }
}

export async function hostMain(env: NodeJS.ProcessEnv): Promise<void> {
  const dir = runtimeDir(env);
  if (dir.kind === 'refused') throw new Error(`the runtime directory ${dir.path} is refused: ${dir.why}`);
  const socketPath = join(dir.path, PTY_SOCKET);
  const host = new PtyHost(await import('@lydell/node-pty'), join(dir.path, PTY_RUNS_FILE), () => {
    rmSync(socketPath, { force: true });
    process.exit(0);
  });
  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    host.server.once('error', reject);
    host.server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  // The host outlives the terminal that started it: a hangup is not its end.
  process.on('SIGHUP', () => {});
}
