/**
 * Reading a Grok Build CLI session into facts and ledger records: what the index calls for every
 * changed `updates.jsonl`, and where this provider's parser version is digested from
 * (`index/version.ts`). Not here: finding the files (`place.ts`).
 *
 * `summary.json` beside the updates says what the lines do not: the session's id (`info.id`), its
 * working directory (`info.cwd`, else `git_root_dir`; else the folder's url-encoded name), and the
 * model (`current_model_id`) of a turn that names none. Known limit: a summary rewritten after the
 * updates were read is seen when the updates next grow.
 */
import { basename, dirname, join } from 'node:path';
import { obj, parseJson, text } from '../../model/json.js';
import { readHead } from '../fsutil.js';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { emptyGrokCarry, type GrokCarry, GrokParser } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

/** A summary is a few kilobytes; one larger than this is not read. */
const MAX_SUMMARY_BYTES = 256 * 1024;

interface Summary {
  id: string | null;
  cwd: string | null;
  model: string | null;
}

function summaryOf(dir: string): Summary {
  const head = readHead(join(dir, 'summary.json'), MAX_SUMMARY_BYTES);
  const o = head?.whole ? obj(parseJson(head.text)) : null;
  const info = obj(o?.info);
  return {
    id: text(info?.id),
    cwd: text(info?.cwd) ?? text(o?.git_root_dir),
    model: text(o?.current_model_id),
  };
}

function decodedFolder(name: string): string | null {
  try {
    return decodeURIComponent(name);
  } catch {
    // A folder name that is not valid percent-encoding names no directory cctop can show.
    return null;
  }
}

export function parse(file: SourceFile, previous: ParseResult<GrokCarry> | null): ParseResult<GrokCarry> {
  const dir = dirname(file.path);
  const summary = summaryOf(dir);
  return readJsonl(file, previous, (facts, carry, ledger) => {
    facts.sessionId ??= summary.id ?? basename(dir);
    facts.cwd ??= summary.cwd ?? decodedFolder(basename(dirname(dir)));
    const parser = new GrokParser(facts, carry ?? emptyGrokCarry(), ledger, summary.model);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
