/**
 * Reading a harness file that is one JSON document rewritten in place (an Amp thread, a Droid
 * settings file, a Codebuff chat, a Gemini CLI `session-*.json`): stat it, read it whole within a bound, and hand the document to
 * the provider's reader. Not for transcripts that grow by lines (`read.ts` tails those).
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { emptyFacts, type FileFacts, noteBadLine } from '../model/facts.js';
import { arr, type JsonObject, obj, readJson } from '../model/json.js';
import { LedgerBuilder } from '../model/ledger.js';
import type { ParseResult, SourceFile } from './types.js';

/**
 * Past this a document is reported, not read: the largest Amp thread of a long day is a few
 * megabytes, and parsing hundreds of megabytes as one string would stall every other reader.
 */
export const MAX_DOCUMENT_BYTES = 64 << 20;

/** Read `file` as one JSON object and let `read` fill the facts and ledger from it. */
export function readWholeJson(
  file: SourceFile,
  read: (o: JsonObject, facts: FileFacts, ledger: LedgerBuilder) => void,
): ParseResult<null> {
  return readWhole(file, obj, read);
}

/** Read `file` as one JSON array (Codebuff's chat) and let `read` fill the facts and ledger from it. */
export function readWholeJsonArray(
  file: SourceFile,
  read: (a: unknown[], facts: FileFacts, ledger: LedgerBuilder) => void,
): ParseResult<null> {
  return readWhole(file, arr, read);
}

function readWhole<T>(
  file: SourceFile,
  shape: (v: unknown) => T | null,
  read: (v: T, facts: FileFacts, ledger: LedgerBuilder) => void,
): ParseResult<null> {
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  const fd = openSync(file.path, 'r');
  let st: ReturnType<typeof fstatSync>;
  let body: string | null = null;
  try {
    st = fstatSync(fd);
    if (st.size > MAX_DOCUMENT_BYTES) facts.oversizedLines = 1;
    else body = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  if (body !== null) {
    facts.lines = 1;
    const r = readJson(body);
    const v = r.kind === 'read' ? shape(r.value) : null;
    if (v === null) noteBadLine(facts, 1, r.kind === 'bad' ? r.reason : 'not-json-object');
    else read(v, facts, ledger);
  }
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    offset: st.size,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    pendingBytes: 0,
  };
}
