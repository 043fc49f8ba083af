/**
 * The runs `cctop/drive` is driving right now, as one cctop hears of them: each driver keeps a
 * connection to this cctop's socket for its run and sends the run's snapshot as it moves
 * (`drive/announce.ts`). A run is followed from its first line until its `bye` or until its
 * connection closes (the program exited or was killed), and then dropped: the session it wrote on
 * disk is an ordinary session again.
 *
 * Answers go back on the run's own connection. Whether one is taken is the driver's decision (the
 * first answer wins, and only on runs that accept answers from outside); this side refuses what it
 * can already tell will not be taken, so the person is told at once rather than by silence.
 *
 * Not here: showing runs (`driven-doc.ts` puts them in the document), the sockets (`runtime/`).
 */
import { EventEmitter } from 'node:events';
import type { PeerLink } from '../runtime/peers.js';
import { PROTOCOL_VERSION, type RunMessage } from '../runtime/protocol.js';
import type { RunSnapshot } from '../runtime/runs.js';

/**
 * The most runs one cctop follows at once. A person drives a handful of agents in parallel; a
 * script fanning out over a repository may drive dozens. Past this, new runs are not followed (they
 * still run, and still show as ordinary sessions once on disk).
 */
export const MAX_DRIVEN_RUNS = 64;

/** Why an answer was not sent, in words for the person who gave it. */
export type AnswerResult = { kind: 'sent' } | { kind: 'refused'; why: string };

interface Followed {
  snapshot: RunSnapshot;
  link: PeerLink;
}

export class DrivenRuns extends EventEmitter<{ changed: [] }> {
  readonly #runs = new Map<string, Followed>();
  /** Bumped whenever a run is added, moves or goes: a view redraws when it changed. */
  version = 0;

  /** A run's message from its driver. */
  readonly handle = (m: RunMessage, from: PeerLink): void => {
    switch (m.kind) {
      case 'announce':
      case 'run-event': {
        const known = this.#runs.get(m.run.id);
        if (known === undefined && this.#runs.size >= MAX_DRIVEN_RUNS) return;
        // A run's id is its driver's: another connection claiming it is not believed.
        if (known !== undefined && known.link !== from) return;
        this.#runs.set(m.run.id, { snapshot: m.run, link: from });
        if (known === undefined) from.onClose(() => this.#drop(m.run.id, from));
        this.#changed();
        return;
      }
      case 'bye':
        this.#drop(m.run, from);
        return;
      case 'answer':
        // Answers go to drivers, not to cctops.
        return;
    }
  };

  #drop(id: string, from: PeerLink): void {
    const known = this.#runs.get(id);
    if (known === undefined || known.link !== from) return;
    this.#runs.delete(id);
    this.#changed();
  }

  #changed(): void {
    this.version++;
    this.emit('changed');
  }

  /** The runs followed now, oldest first. */
  list(): RunSnapshot[] {
    return [...this.#runs.values()].map((f) => f.snapshot);
  }

  get(id: string): RunSnapshot | null {
    return this.#runs.get(id)?.snapshot ?? null;
  }

  /** Send a person's answer to one of a run's approvals. */
  answer(runId: string, request: string, behavior: 'allow' | 'deny', by: string): AnswerResult {
    const f = this.#runs.get(runId);
    if (f === undefined) return { kind: 'refused', why: 'that run has ended' };
    const s = f.snapshot;
    if (!s.remote)
      return {
        kind: 'refused',
        why: `${s.program} answers its own approvals (it did not ask for approvals: 'remote')`,
      };
    if (!s.pending.some((p) => p.id === request)) {
      const a = s.answered;
      return {
        kind: 'refused',
        why:
          a !== null && a.id === request
            ? `already answered (${a.behavior}) by ${a.by}`
            : 'nothing of that id is waiting',
      };
    }
    const sent = f.link.send({
      v: PROTOCOL_VERSION,
      kind: 'answer',
      answer: { run: runId, request, behavior, by },
    });
    return sent
      ? { kind: 'sent' }
      : { kind: 'refused', why: 'the driving program is not reading its connection' };
  }
}
