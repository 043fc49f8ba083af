/**
 * Who answers a run's approvals under `cctop exec --approvals`:
 *
 * - `ask`: the person at this terminal. The tool and its whole input are shown (made safe to print),
 *   and `y` allows it; anything else denies it. Questions are asked one at a time, in the order the
 *   agents asked them, each labelled with its agent when several run at once (`--all`): one
 *   terminal, one question on it. Read from the controlling terminal (`/dev/tty`), never from stdin, which may
 *   be the prompt; with no terminal there is no one to ask, and the command refuses before it starts.
 * - `remote`: the people watching in a running cctop (the live table's `a`/`d`, the dashboard's
 *   Allow and Deny; `docs/protocol.md`, "Driven runs"). Here, only a word on stderr saying where the
 *   question went, and when no cctop is running to see it.
 *
 * Not here: the run (`exec.ts`), or how answers travel (`drive/announce.ts`).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ReadStream } from 'node:tty';
import { inputText } from '../../drive/announce-fold.js';
import type { Decision, Event } from '../../drive/events.js';
import type { Run } from '../../drive/run.js';
import type { Env } from '../../providers/types.js';
import { runtimeDirPath } from '../../runtime/dir.js';
import { peerSockets } from '../../runtime/peers.js';
import { safeText } from '../terminal-text.js';
import type { Paint } from './color.js';

export const APPROVAL_MODES = ['ask', 'remote'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

type Approval = Extract<Event, { kind: 'approval_request' }>;

/**
 * Answers approvals as they come; `close()` once the runs are over. `who` names the agent that asks
 * when several run at once (`--all`), null when one does.
 */
export interface Approver {
  onApproval(e: Approval, run: Run, who: string | null): void;
  close(): void;
}

/** The agent a question is from, in front of it, when several agents run at once. */
const from = (who: string | null): string => (who === null ? '' : `[${safeText(who)}] `);

/** The person at a terminal, asked one question at a time: `y` allows, anything else denies. */
export class TerminalApprover implements Approver {
  #queue: Promise<void> = Promise.resolve();
  readonly #lines: AsyncIterator<string>;

  constructor(
    input: Readable,
    private readonly write: (text: string) => void,
    private readonly p: Paint,
    private readonly onClose: () => void = () => {},
  ) {
    this.#lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  }

  onApproval(e: Approval, run: Run, who: string | null): void {
    this.#queue = this.#queue.then(async () => {
      this.write(
        `\n${this.p.amber(`${from(who)}${safeText(e.tool)} asks to run:`)}\n  ${safeText(inputText(e.input))}\nAllow? [y/N] `,
      );
      const line = await this.#lines.next();
      const yes = line.done !== true && /^\s*y(es)?\s*$/i.test(line.value);
      const decision: Decision = yes
        ? { behavior: 'allow' }
        : { behavior: 'deny', reason: 'The user said no at the terminal.' };
      try {
        run.respond(e.id, decision);
        this.write(yes ? 'allowed\n' : 'denied\n');
      } catch (err) {
        // Answered meanwhile (the run ended, or it was withdrawn): nothing to do but say so.
        this.write(`not answered: ${safeText((err as Error).message)}\n`);
      }
    });
  }

  close(): void {
    void this.#lines.return?.();
    this.onClose();
  }
}

/** The controlling terminal, opened for a question and its answer; a reason when there is none. */
export function terminalApprover(p: Paint, path = '/dev/tty'): Approver | string {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (err) {
    return `--approvals ask needs a terminal to ask on (${path}: ${(err as NodeJS.ErrnoException).code ?? 'cannot open'}); use --approvals remote to answer from a running cctop`;
  }
  const input = new ReadStream(fd);
  return new TerminalApprover(
    input,
    (text) => {
      try {
        writeSync(fd, text);
      } catch {
        // A terminal that went away: the question is lost, the answer read as no.
      }
    },
    p,
    () => {
      input.destroy();
      try {
        closeSync(fd);
      } catch {
        // Closed with the stream already.
      }
    },
  );
}

/** Leaves the answer to running cctops, and says where the question went. */
export function remoteApprover(env: Env, err: (line: string) => void, p: Paint): Approver {
  return {
    onApproval(e, _run, who) {
      const watchers = peerSockets(runtimeDirPath(env)).length;
      err(
        p.amber(
          `${from(who)}${safeText(e.tool)} waits for an answer: ${safeText(inputText(e.input)).slice(0, 200)}\n  ${
            watchers === 0
              ? 'no cctop is running to see it: start `cctop` (then a or d) or `cctop serve` in another terminal'
              : `answer it in a running cctop (the live table: a or d; the dashboard: Allow or Deny)`
          }`,
        ),
      );
    },
    close() {},
  };
}

/** Who answers under `--approvals MODE`: null for none, a reason when no one can. */
export function approverFor(
  mode: ApprovalMode | null,
  io: { env: Env; err: (line: string) => void },
  p: Paint,
): Approver | string | null {
  switch (mode) {
    case null:
      return null;
    case 'ask':
      return terminalApprover(p);
    case 'remote':
      return remoteApprover(io.env, io.err, p);
  }
}
