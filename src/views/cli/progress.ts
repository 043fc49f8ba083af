/**
 * A one-shot's progress on stderr while the index builds (a first run, `--no-cache`): files and
 * bytes read of how many, redrawn in place on one line and cleared before the answer is printed.
 * Only on a terminal: on a pipe or in a file nobody watches it, and a script reading stderr must
 * not find it there. Never on stdout, so `--json` stays one document.
 *
 * Not here: the live table's and the page's progress (their own views draw `buildProgress`).
 */
import type { BuildProgress } from '../../index/options.js';
import { buildProgress } from '../format.js';

/**
 * Builds reading less than this are not shown: they end within a few tenths of a second on a small
 * machine (this is what `pool.ts` reads on one thread, 32 MiB, halved), before a line could be read.
 */
export const PROGRESS_MIN_BYTES = 16 << 20;

/** Redrawn at most this often: a person reads ten updates a second at best; more only costs writes. */
export const PROGRESS_EVERY_MS = 100;

/** Clear the line and return to its start: `\r` then erase to the end of the line. */
const CLEAR = '\r\u001b[K';

export interface StderrProgress {
  onBuilding: (b: BuildProgress) => void;
  /** Clear the line, if anything was drawn: the answer follows. */
  done(): void;
}

/** The progress line for `stream` (stderr), or null when it is not a terminal. */
export function stderrProgress(
  stream: Pick<NodeJS.WriteStream, 'isTTY' | 'write'> = process.stderr,
  now: () => number = Date.now,
): StderrProgress | null {
  if (stream.isTTY !== true) return null;
  let drawn = false;
  let lastMs = Number.NEGATIVE_INFINITY;
  return {
    onBuilding: (b) => {
      if (b.bytesTotal < PROGRESS_MIN_BYTES) return;
      // The first and the last state always, the ones between at most every PROGRESS_EVERY_MS.
      const edge = b.files === 0 || b.files === b.filesTotal;
      const t = now();
      if (!edge && t - lastMs < PROGRESS_EVERY_MS) return;
      lastMs = t;
      drawn = true;
      stream.write(`${CLEAR}cctop: ${buildProgress(b)}`);
    },
    done: () => {
      if (drawn) stream.write(CLEAR);
      drawn = false;
    },
  };
}
