// The least any Node program can do with the bytes cctop reads, to measure cctop against (run by
// bench/floor.mjs, not by hand). It reads transcripts and `JSON.parse`s every line, keeping nothing:
// no index, no sessions, no output but a count. Two forms:
//   node bench/floor-read.mjs tail FILE OFFSET [FILE OFFSET ...]   the lines after each offset
//   node bench/floor-read.mjs all DIR THREADS                      every .jsonl under DIR, in threads
// With FLOOR_SPLIT=1 the lines are only found (a search for each newline in the bytes), not parsed.
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const splitOnly = process.env.FLOOR_SPLIT === '1';

/** How many lines `bytes` holds, each parsed unless only split. */
function lines(bytes) {
  let n = 0;
  let at = 0;
  while (at < bytes.length) {
    let nl = bytes.indexOf(10, at);
    if (nl < 0) nl = bytes.length;
    if (nl > at) {
      if (!splitOnly) JSON.parse(bytes.toString('utf8', at, nl));
      n++;
    }
    at = nl + 1;
  }
  return n;
}

function tail(path, offset) {
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.allocUnsafe(fstatSync(fd).size - offset);
    readSync(fd, bytes, 0, bytes.length, offset);
    return lines(bytes);
  } finally {
    closeSync(fd);
  }
}

function transcripts(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...transcripts(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

if (!isMainThread) {
  let n = 0;
  for (const f of workerData) n += lines(readFileSync(f));
  parentPort.postMessage(n);
} else if (process.argv[2] === 'tail') {
  let n = 0;
  for (let i = 3; i < process.argv.length; i += 2) n += tail(process.argv[i], Number(process.argv[i + 1]));
  console.log(n);
} else if (process.argv[2] === 'all') {
  const all = transcripts(process.argv[3]);
  const threads = Number(process.argv[4]);
  const counts = await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const w = new Worker(new URL(import.meta.url), { workerData: all.filter((_, i) => i % threads === t) });
      return new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    }),
  );
  console.log(counts.reduce((a, b) => a + b, 0));
} else throw new Error('usage: floor-read.mjs tail FILE OFFSET ... | all DIR THREADS');
