/**
 * Every line of the corpus (and of the bundled demo and the lab's recorded runs) for a harness, for
 * tests that compare the fast extractors with a full parse.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, HAVE_CORPUS, REPO } from './corpus.js';

function jsonlUnder(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(jsonlUnder(p));
    else if (name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

export function linesOf(paths: string[]): { file: string; line: Buffer }[] {
  const out: { file: string; line: Buffer }[] = [];
  for (const file of paths) {
    const buf = readFileSync(file);
    let s = 0;
    while (s < buf.length) {
      let e = buf.indexOf(10, s);
      if (e === -1) e = buf.length;
      if (e > s) out.push({ file, line: buf.subarray(s, e) });
      s = e + 1;
    }
  }
  return out;
}

export function corpusFiles(sub: string): string[] {
  return HAVE_CORPUS ? jsonlUnder(join(CORPUS, sub)) : [];
}

/** The transcripts a real CLI wrote in the conformance lab (`lab/fixtures/<agent>/`), in every clone. */
export function labFiles(agent: string): string[] {
  return jsonlUnder(join(REPO, 'lab', 'fixtures', agent));
}

export function demoFiles(sub: string): string[] {
  return jsonlUnder(join(REPO, 'demo', 'home', sub));
}
