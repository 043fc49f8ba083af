/**
 * Cursor: the agent's transcripts, `projects/<project>/agent-transcripts/<id>/<id>.jsonl` (older
 * builds: `agent-transcripts/<id>.jsonl`) under `$CURSOR_HOME` or `~/.cursor`. Other transcripts
 * inside a session's folder (its `subagents/`, or beside the main one) are subagents counted toward
 * it.
 *
 * ponytail: the project folder name is the workspace path with `/` turned into `-`, which cannot be
 * turned back (a `-` in a directory name reads the same), so the project is left unknown rather than
 * guessed.
 *
 * Finding the transcripts and the window rules are in `place.ts`; reading them is here.
 */
import { statSync } from 'node:fs';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, Provider, SourceFile } from '../types.js';
import { CursorParser, stampFileTimes } from './parser.js';
import { cursorPlace } from './place.js';
import { lineFromBytes, lineFromJson } from './record.js';

export { cursorPlace, cursorRoots } from './place.js';

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  const result = readJsonl(file, previous, (facts) => {
    const parser = new CursorParser(facts);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => null };
  });
  stampFileTimes(
    result.facts,
    result.mtimeMs,
    statSync(file.path, { throwIfNoEntry: false })?.birthtimeMs ?? 0,
  );
  return result;
}

export const cursor: Provider = { ...cursorPlace, parse };
