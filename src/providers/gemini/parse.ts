/**
 * Reading a Gemini CLI chat (a `.jsonl` tailed, or a whole-file `.json`) into facts and ledger
 * records: what the index calls for every changed file, and where this provider's parser version is
 * digested from (`index/version.ts`). Not here: finding the files (`place.ts`), or the conversation
 * and calls readers (`index.ts`), so an edit to those does not make the index read the files again.
 */
import { sep } from 'node:path';
import { emptyFacts, type FileFacts, noteBadLine } from '../../model/facts.js';
import { readObjectAt } from '../../model/json.js';
import { LedgerBuilder, RECORD_FIELDS } from '../../model/ledger.js';
import { DriftTally } from '../drift.js';
import { readHead } from '../fsutil.js';
import { isBlank, scanLines } from '../jsonl.js';
import type { ParseResult, SourceFile } from '../types.js';
import { MAX_DOCUMENT_BYTES, readWholeJson } from '../whole-json.js';
import { GEMINI_DRIFT } from './known.js';
import { type GeminiCarry, GeminiChat } from './parser.js';
import { conversationFrom, lineFromJson } from './record.js';

/**
 * A whole-file chat is parsed in one piece; past this it is reported, not read (`../whole-json.ts`).
 * The largest seen is under half a megabyte; a chat file of hundreds of megabytes is not one Gemini
 * CLI would load either.
 */
export const MAX_WHOLE_FILE_BYTES = MAX_DOCUMENT_BYTES;

/** `.project_root` holds one path; anything longer is not one. */
const MAX_PROJECT_ROOT_BYTES = 4096;

/** The project directory Gemini CLI wrote beside the chats (`tmp/<project>/.project_root`). */
function projectRoot(chatPath: string): string | null {
  const parts = chatPath.split(sep);
  const at = parts.lastIndexOf('chats');
  if (at <= 0) return null;
  const head = readHead([...parts.slice(0, at), '.project_root'].join(sep), MAX_PROJECT_ROOT_BYTES);
  if (head === null) return null;
  const text = head.text.trim();
  return text.length > 0 && head.whole && !text.includes('\n') ? text : null;
}

function parseJsonl(
  file: SourceFile,
  previous: ParseResult<GeminiCarry | null> | null,
): ParseResult<GeminiCarry | null> {
  const carry = previous?.carry ?? null;
  const tail = previous !== null && carry !== null;
  let facts: FileFacts;
  let ledger: LedgerBuilder;
  if (tail) {
    facts = structuredClone(carry.settled);
    const settled = previous.ledger.data.subarray(0, carry.settledRecords * RECORD_FIELDS);
    ledger = new LedgerBuilder(previous.ledger.models, settled, previous.ledger.toolSets);
  } else {
    facts = emptyFacts();
    facts.cwd = projectRoot(file.path);
    ledger = new LedgerBuilder();
  }
  const chat = new GeminiChat(facts, carry?.window ?? [], tail);
  // Every line is parsed whole here: what this reader does not know is looked at in the same object.
  const drift = new DriftTally(facts, GEMINI_DRIFT);
  const before = facts.lines;
  const scan = scanLines(file.path, tail ? previous.offset : 0, (buf, start, end, unterminated, index) => {
    if (chat.restart) return false;
    const r = readObjectAt(buf, start, end);
    if (r.kind === 'bad') {
      // The writer may be mid-line: an incomplete last line is left for the next pass, not counted.
      if (unterminated) return false;
      if (!isBlank(buf, start, end)) noteBadLine(facts, before + index + 1, r.reason);
      return false;
    }
    drift.object(r.value, before + index + 1);
    chat.line(lineFromJson(r.value));
    return true;
  });
  if (chat.restart) return parseJsonl(file, null);
  facts.lines = before + scan.lines;
  facts.oversizedLines += scan.oversized;
  const done = chat.finish(ledger);
  return {
    facts: done.facts,
    carry: done.carry,
    ledger: ledger.build(),
    offset: scan.end,
    size: scan.size,
    mtimeMs: scan.mtimeMs,
    ino: scan.ino,
    pendingBytes: scan.pendingBytes,
  };
}

/** A whole-file `session-*.json`: rewritten in place, so always read from the start. */
function parseWholeFile(file: SourceFile): ParseResult<null> {
  const root = projectRoot(file.path);
  const read = readWholeJson(file, (o, facts, ledger) => {
    facts.cwd = root;
    const { meta, messages } = conversationFrom(o);
    const chat = new GeminiChat(facts, [], false);
    chat.line({ kind: 'header', meta });
    for (const message of messages) chat.line({ kind: 'message', message });
    chat.finish(ledger);
  });
  // A chat too large or too damaged to read still belongs to its project.
  read.facts.cwd ??= root;
  return read;
}

export function parse(
  file: SourceFile,
  previous: ParseResult<GeminiCarry | null> | null,
): ParseResult<GeminiCarry | null> {
  return file.path.endsWith('.json') ? parseWholeFile(file) : parseJsonl(file, previous);
}
