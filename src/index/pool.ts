/**
 * Parsing many files at once: on worker threads (one per core, or `--threads N`), largest files
 * first so no thread is left with the 80 MB transcript at the end, and with the calling thread free.
 * A handful of small reads is done in-process instead: starting workers costs more than it saves.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { later } from '../later.js';
import type { ProviderId } from '../model/facts.js';
import type { ProblemLog } from '../model/problems.js';
import type { ParseResult, Provider, SourceFile } from '../providers/types.js';
import type { Reply, Task } from './worker.js';

export interface ParseTask {
  file: SourceFile;
  previous: ParseResult | null;
}

/**
 * Below this many bytes to read, workers cost more to start (a few hundred milliseconds on a small
 * machine: each loads the parsers afresh) than they save.
 */
export const INLINE_BYTES = 32 << 20;

/** Files sent to a worker per message, so small files do not cost a round trip each. */
const BATCH_BYTES = 4 << 20;
const BATCH_FILES = 64;

export const defaultThreads = (): number => Math.max(1, availableParallelism());

/**
 * How much V8 may grow a thread's young generation at a time, once a large read starts: 1, not at
 * all. V8 doubles it (up to 16 MB a half, both halves resident) whenever many of its objects survive
 * a collection, and a cold build is nothing but that: on the 1.2 GiB bench history the main thread's
 * grew from 8 to 32 MB while it built sessions beside two workers, and it never shrinks back. Held at
 * its size, a cold `--json --no-cache` peaked at 181 MiB instead of 215, with no more CPU time
 * (`bench/RESULTS.md`). The flag is process-wide and V8 reads it each time it would grow a young
 * generation, so a running view keeps it too. Starting a worker puts it back to 2 (seen on Node 20:
 * a new isolate resets it), so it is set again once each worker is up. Where the flag does nothing
 * (another V8), memory is as before and answers are the same.
 */
export const YOUNG_GROWTH = 1;

const v8 = later<typeof import('node:v8')>('node:v8');
let youngHeld = false;

/** From now on, no thread's young generation grows (`YOUNG_GROWTH`). */
export function holdYoungGeneration(): void {
  youngHeld = true;
  v8().setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH}`);
}

/** A scan worker; once it is up, the young generations are held again if they were. */
function startWorker(): Worker {
  const w = new (workerClass())(workerURL());
  w.once('online', () => {
    if (youngHeld) holdYoungGeneration();
  });
  return w;
}

/** The bytes a task reads: the whole file, or what grew past the stored offset. */
export function toRead(t: ParseTask): number {
  return Math.max(0, t.file.size - (t.previous?.offset ?? 0));
}

/**
 * Told as files are read: the indexes into the tasks of the ones just done, their results already in
 * `results` (null for a file that could not be read). Called on the calling thread, between replies.
 */
export type OnParsed = (done: readonly number[], results: readonly (ParseResult | null)[]) => void;

async function parseInline(
  tasks: readonly ParseTask[],
  problems: ProblemLog,
  onParsed: OnParsed | undefined,
): Promise<(ParseResult | null)[]> {
  // The parsers are loaded here, when a file is read on this thread, and not with this module: a run
  // that answers from the index reads nothing and should not pay for loading them.
  if (tasks.length === 0) return [];
  // Only the harnesses of these files: a patch reads a few files of one or two.
  const { loadProvider } = await import('../providers/load.js');
  const providers = new Map<ProviderId, Provider>();
  for (const t of tasks)
    if (!providers.has(t.file.provider)) providers.set(t.file.provider, await loadProvider(t.file.provider));
  const { readSource } = await import('../providers/fence.js');
  const results: (ParseResult | null)[] = new Array(tasks.length).fill(null);
  // Told in batches as a worker would send them, so a caller writing each batch does not write per file.
  let done: number[] = [];
  let size = 0;
  tasks.forEach((t, i) => {
    const read = readSource(providers.get(t.file.provider)!, t.file, t.previous);
    if (read.kind === 'answered') results[i] = read.value;
    else problems.add(read.problem);
    done.push(i);
    size += toRead(t);
    if (done.length >= BATCH_FILES || size >= BATCH_BYTES || i === tasks.length - 1) {
      onParsed?.(done, results);
      done = [];
      size = 0;
    }
  });
  return results;
}

/**
 * Parse every task; a file that cannot be read yields null and a problem. `onParsed` hears of each
 * batch as it comes back, so a caller can build on what is read while the rest is being read.
 */
export async function parseMany(
  tasks: readonly ParseTask[],
  threads: number,
  problems: ProblemLog,
  onParsed?: OnParsed,
): Promise<(ParseResult | null)[]> {
  const bytes = tasks.reduce((n, t) => n + toRead(t), 0);
  if (bytes >= INLINE_BYTES) holdYoungGeneration();
  const workers = Math.min(threads, tasks.length);
  if (workers <= 1 || bytes < INLINE_BYTES) {
    dropSpares();
    return parseInline(tasks, problems, onParsed);
  }

  const results: (ParseResult | null)[] = new Array(tasks.length).fill(null);
  const order = tasks.map((_, i) => i).sort((a, b) => toRead(tasks[b]!) - toRead(tasks[a]!));
  let next = 0;
  const nextBatch = (): Task[] => {
    const batch: Task[] = [];
    let size = 0;
    while (next < order.length && batch.length < BATCH_FILES && (batch.length === 0 || size < BATCH_BYTES)) {
      const id = order[next++]!;
      const t = tasks[id]!;
      batch.push({ id, file: t.file, previous: t.previous });
      size += toRead(t);
    }
    return batch;
  };

  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = spares.pop() ?? startWorker();
          w.ref();
          let inFlight = 0;
          const feed = () => {
            // Two batches in flight: the worker never waits on the main thread between them.
            while (inFlight < 2) {
              const batch = nextBatch();
              if (batch.length === 0) break;
              inFlight++;
              w.postMessage(batch);
            }
            if (inFlight === 0) {
              void w.terminate();
              resolve();
            }
          };
          w.on('message', (replies: Reply[]) => {
            inFlight--;
            for (const r of replies) {
              if (r.ok) results[r.id] = r.result;
              else problems.add(r.problem);
            }
            // The worker is fed before the caller builds on its replies: it reads while this thread builds.
            feed();
            if (onParsed) {
              try {
                onParsed(
                  replies.map((r) => r.id),
                  results,
                );
              } catch (err) {
                reject(err);
              }
            }
          });
          w.on('error', reject);
          feed();
        }),
    ),
  );
  dropSpares();
  return results;
}

// Workers run compiled code; under the test runner (sources) that is the build `npm test` makes first.
const DIST_INDEX = import.meta.url.endsWith('.ts') ? new URL('../../dist/index/', import.meta.url) : null;
const inDist = (name: string): URL => new URL(name, DIST_INDEX ?? import.meta.url);

/**
 * The worker's code: the build's one file of it (`worker-bundle.js`, `scripts/cli-bundle.mjs`), which a
 * fresh isolate loads on a third of the CPU time 200 modules take, or the module itself in a tree
 * built without the bundle, or compiled again since it was made (a plain `tsc`). Asked once per run,
 * when the first worker starts.
 */
let workerUrl: URL | null = null;
function workerURL(): URL {
  if (workerUrl === null) {
    const bundle = inDist('./worker-bundle.js');
    const module = inDist('./worker.js');
    // A bundle older than the module is from an earlier build (a plain `tsc` since): the module then.
    const bundled = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
    const compiled = statSync(module, { throwIfNoEntry: false })?.mtimeMs;
    workerUrl = bundled !== undefined && (compiled === undefined || bundled >= compiled) ? bundle : module;
  }
  return workerUrl;
}

const workerThreads = later<typeof import('node:worker_threads')>('node:worker_threads');
const workerClass = () => workerThreads().Worker;

/** Workers started ahead of need, loading their modules while discovery runs on this thread. */
const spares: Worker[] = [];

/**
 * Start `n` workers now, for a pass that will surely parse a lot (`--no-cache`, an empty index):
 * their start-up (a fresh V8 and the parsers' modules, a quarter of a second here) overlaps
 * discovery instead of following it. Unused, they hold nothing up: they do not keep the process
 * alive and the next `parseMany` ends them.
 */
export function prestartWorkers(n: number): void {
  holdYoungGeneration();
  while (spares.length < n) {
    const w = startWorker();
    w.unref();
    // A spare that fails to start is simply not used; `parseMany` starts another.
    w.on('error', () => {
      const i = spares.indexOf(w);
      if (i >= 0) spares.splice(i, 1);
    });
    spares.push(w);
  }
}

function dropSpares(): void {
  for (const w of spares.splice(0)) void w.terminate();
}
