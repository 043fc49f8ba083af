/**
 * The files the tests read: the lab's recorded runs of the real CLIs (`lab/fixtures/`) and the bundled
 * demo history (`demo/home`), in every clone; and the shared corpus (`../shared/corpus`), only where it
 * is present. The corpus is an optional extra: `corpusFiles` is empty without it, and no test may need
 * it for its main assertion.
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

/** The home a real CLI wrote in one recorded lab case (`lab/fixtures/<agent>/<name>/home`). */
export const labHome = (agent: string, name: string): string =>
  join(REPO, 'lab', 'fixtures', agent, name, 'home');

/** The one transcript a real CLI wrote in one recorded lab case. */
export function labFile(agent: string, name: string): string {
  const files = jsonlUnder(labHome(agent, name));
  if (files.length !== 1 || files[0] === undefined)
    throw new Error(`lab/fixtures/${agent}/${name} holds ${files.length} transcripts, not one`);
  return files[0];
}

/** The recorded lab cases of every agent: one script each, `resume` a second prompt in the same session. */
export const LAB_CASES = ['text', 'call', 'fail', 'parallel', 'resume'] as const;

export function demoFiles(sub: string): string[] {
  return jsonlUnder(join(REPO, 'demo', 'home', sub));
}
