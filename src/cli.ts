#!/usr/bin/env node
/**
 * The `cctop` executable. Everything it does lives in `views/cli/main.ts`; this file only wires it to
 * the process, so importing cctop as a library never touches `process.exit`.
 */
import { writeSync, writevSync } from 'node:fs';

/**
 * How much a function runs before V8 considers compiling it with its optimising compiler, in V8's
 * own units (its default on Node 20 is 132 KiB of bytecode budget). A one-shot lives for a fraction
 * of a second: at the default, V8 spent more CPU optimising the transcript readers in the background
 * than the main thread spent reading (about 150 of 240 ms on 10 MiB of appended Claude lines), for
 * code the process then left. A budget about twice as large optimises only what runs long enough to
 * pay back: `cctop --json` after ten transcripts grew 1 MiB each took about 20% less CPU (bench/scan.mjs
 * --only appended), warm answers and a cold read of 200 MiB the same. Long-running views reach the
 * same optimised code a little later. Set when the command line is loaded (`runMain`), before any of
 * its code is: a warm answer or a hook, which read no transcript, do not load `node:v8` (and the
 * stream modules it brings) for it, and the status line keeps V8's defaults, because V8 refuses a
 * code cache made under other flags and the status line's (`statusline/launch.cts`) is shared with
 * `cctop.cjs`, which does not set it.
 */
const V8_INTERRUPT_BUDGET = 300_000;

// Node 22.1 and later keep the compiled code of our modules on disk between runs: a warm one-shot
// then spends less of its time compiling. Node 20 has no such cache, and is not made to load
// `node:module` to find that out (the status line runs after every message: each module counts).
if (Number(process.versions.node.split('.')[0]) >= 22) {
  const nodeModule = await import('node:module');
  const enableCompileCache: unknown = Reflect.get(nodeModule, 'enableCompileCache');
  if (typeof enableCompileCache === 'function') {
    try {
      enableCompileCache.call(nodeModule);
    } catch {
      // A cache directory that cannot be made costs only the time it would have saved.
    }
  }
}

const NEWLINE = Buffer.from('\n');

/** Text and bytes as one buffer, each copied once: an answer is written with one system call. */
function joined(chunks: readonly (string | Uint8Array)[]): Buffer {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only !== undefined && typeof only !== 'string')
    return Buffer.from(only.buffer, only.byteOffset, only.length);
  let size = 0;
  for (const c of chunks) size += typeof c === 'string' ? Buffer.byteLength(c) : c.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const c of chunks) {
    if (typeof c === 'string') at += out.write(c, at);
    else {
      out.set(c, at);
      at += c.length;
    }
  }
  return out;
}

/**
 * Write `b` to stdout now, in as few system calls as the kernel allows. stdout to a file is a
 * `SyncWriteStream`, where `cork()` batches nothing: each `write` was a system call. A pipe or a
 * terminal that is not ready (EAGAIN) gets the rest through the stream, which waits for it.
 */
function writeOut(b: Buffer): void {
  // Once the stream holds bytes, everything after them goes through it too, in order.
  if (queued) {
    process.stdout.write(b);
    return;
  }
  let at = 0;
  try {
    while (at < b.length) at += writeSync(1, b, at, b.length - at);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : null;
    if (code === 'EPIPE') process.exit(0);
    if (code !== 'EAGAIN') throw err;
    queued = true;
    process.stdout.write(b.subarray(at));
  }
}

let queued = false;

/**
 * Write `parts` to stdout in order, with as few system calls as the kernel allows and without first
 * copying them into one buffer (a warm `--json` is several megabytes of the document's own bytes).
 * What the descriptor does not take at once goes through `writeOut`.
 */
function writePartsOut(parts: readonly Uint8Array[]): void {
  let size = 0;
  for (const p of parts) size += p.length;
  let done = 0;
  if (!queued)
    try {
      done = writevSync(1, parts);
    } catch (err) {
      const code = err instanceof Error && 'code' in err ? err.code : null;
      if (code === 'EPIPE') process.exit(0);
      // Not ready before a byte was taken: `writeOut` waits for it.
      if (code !== 'EAGAIN') throw err;
    }
  if (done < size) writeOut(rest(parts, done));
}

/** The bytes of `parts` after the first `done`, as one buffer (only those are copied). */
function rest(parts: readonly Uint8Array[], done: number): Buffer {
  let skip = done;
  let i = 0;
  while (i < parts.length && skip >= parts[i]!.length) skip -= parts[i++]!.length;
  const left = parts.slice(i);
  if (left.length > 0) left[0] = left[0]!.subarray(skip);
  return Buffer.concat(left);
}

// `cctop statusline` runs after every message Claude Code sends: it is handed its own entry before
// the rest of the command line is loaded (see statusline/bin.ts).
// `cctop hook` runs on every event of every agent whose hooks cctop installed: likewise (hooks/bin.ts).
// A bare `cctop --json`, `cctop --list` or `cctop daily --json` with nothing changed is printed from
// the warm document by an entry that loads almost nothing (warm-answer.ts); when it cannot prove the
// document current, the command line answers as always (and `daily --json` keeps its answer beside it).
const argv = process.argv.slice(2);
const warmAsk =
  argv.length === 1 && argv[0] === '--json'
    ? 'json'
    : argv.length === 1 && argv[0] === '--list'
      ? 'list'
      : isDailyJson(argv)
        ? 'daily'
        : null;
if (argv[0] === 'statusline') await import('./statusline/bin.js');
else if (argv[0] === 'hook') await import('./hooks/bin.js');
else if (warmAsk === null || !(await warmServed(warmAsk))) await runMain(warmAsk === 'daily');

function isDailyJson(a: readonly string[]): boolean {
  return a.length === 2 && a[0] === 'daily' && a[1] === '--json';
}

/** Whether the warm document answered (then the answer is written). */
async function warmServed(ask: 'json' | 'list' | 'daily'): Promise<boolean> {
  const { warmDaily, warmJson, warmList } = await warmEntry();
  let r: Awaited<ReturnType<typeof warmJson>>;
  try {
    const o = { env: process.env, nowMs: Date.now() };
    r =
      ask === 'json'
        ? await warmJson(o)
        : ask === 'list'
          ? await warmList({ ...o, isTty: process.stdout.isTTY === true, columns: process.stdout.columns })
          : await warmDaily(o);
  } catch {
    // A document it cannot make sense of (the CRC held, the layout did not): the full route answers
    // and writes it again, as for any other reason to decline.
    return false;
  }
  if (r.kind === 'declined') return false;
  writePartsOut(r.parts);
  return true;
}

/** The command line; `keepDaily`: its answer (`daily --json`) is kept beside the warm document. */
async function runMain(keepDaily: boolean): Promise<void> {
  (await import('node:v8')).setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
  const { main } = await commandLine();
  const warm = keepDaily ? await warmEntry() : null;
  const before = warm?.docIds(process.env) ?? null;
  const written: Buffer[] = [];
  const out = (b: Buffer) => {
    if (warm !== null) written.push(b);
    writeOut(b);
  };

  // A closed pipe (`cctop --list | head`) is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  const code = await main(process.argv.slice(2), {
    out: (s) => out(typeof s === 'string' ? Buffer.from(`${s}\n`) : Buffer.concat([s, NEWLINE])),
    // Parts as they are, in one `writev` (a `--json` through the index is its kept facts where they
    // lie); joined only when the answer is also kept (`daily --json`).
    write: (chunks) =>
      warm === null
        ? writePartsOut(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)))
        : out(joined(chunks)),
    err: (s) => process.stderr.write(`${s}\n`),
    page: async (text) => {
      const { pageText } = await import('./views/cli/pager.js');
      await pageText(text, process.env, (t) => process.stdout.write(t));
    },
    isTty: process.stdout.isTTY === true,
    columns: process.stdout.columns,
    env: process.env,
  });
  process.exitCode = code;
  if (warm !== null && code === 0)
    await warm.keepDaily({ env: process.env, nowMs: Date.now() }, before, Buffer.concat(written));
}

/** `warm-entry.ts`'s face. */
type WarmEntry = typeof import('./warm-entry.js');

/**
 * The warm entry: the build's chunk of it (`dist/cli-bundle/warm.js`, which the rest of the bundle
 * imports too, so each of its modules is one instance), or the module itself in a tree built without
 * the bundle.
 */
async function warmEntry(): Promise<WarmEntry> {
  const m = await bundled('warm.js');
  if (m === null) return import('./warm-entry.js');
  if (!isWarmEntry(m))
    throw new Error("dist/cli-bundle/warm.js is not the warm entry's chunk: npm run build");
  return m;
}

/** `views/cli/main.ts`'s face. */
type CommandLine = typeof import('./views/cli/main.js');

/**
 * The command line: the build's bundle of it (`dist/cli-bundle/`, made by `scripts/cli-bundle.mjs`:
 * the same modules as a few files, which node loads in a fraction of the time it takes to resolve,
 * read, compile and link each of them), or the modules themselves in a tree built without it (a plain
 * `tsc`). A bundle that is there but cannot be linked fails before any of it runs: the modules answer.
 */
async function commandLine(): Promise<CommandLine> {
  const m = await bundled('main.js');
  if (m === null) return import('./views/cli/main.js');
  if (!isCommandLine(m))
    throw new Error("dist/cli-bundle/main.js is not the command line's bundle: npm run build");
  return m;
}

/** One of the bundle's entries (`dist/cli-bundle/<name>`), or null in a tree built without it. */
async function bundled(name: string): Promise<unknown> {
  try {
    return await import(new URL(`./cli-bundle/${name}`, import.meta.url).href);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : null;
    if (code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return null;
  }
}

// Declared as functions, not consts: the top-level `await` above runs before a const below is set.
function hasFunction(v: unknown, name: string): boolean {
  return typeof v === 'object' && v !== null && typeof Reflect.get(v, name) === 'function';
}

function isCommandLine(v: unknown): v is CommandLine {
  return hasFunction(v, 'main');
}

function isWarmEntry(v: unknown): v is WarmEntry {
  return ['warmJson', 'warmList', 'warmDaily', 'docIds', 'keepDaily'].every((f) => hasFunction(v, f));
}
