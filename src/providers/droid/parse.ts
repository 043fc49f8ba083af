/**
 * Reading a Droid session into facts and its ledger record: its settings file (found by discovery)
 * and the conversation beside it. What the index calls for every changed settings file, and where
 * this provider's parser version is digested from (`index/version.ts`).
 *
 * known limit: the index notices a change to the settings file, not to the conversation beside it;
 * Droid rewrites the settings after each request, so the two move together in practice.
 */
import { existsSync } from 'node:fs';
import { parseObjectAt } from '../../model/json.js';
import { scanLines } from '../jsonl.js';
import type { ParseResult, SourceFile } from '../types.js';
import { readWholeJson } from '../whole-json.js';
import { DroidConversationFacts, readSettings } from './parser.js';
import { SETTINGS_SUFFIX } from './place.js';
import { modelName, recordFrom, settingsFrom } from './record.js';

/**
 * How many conversation lines are searched for the model's name when the settings do not give it:
 * Droid states it in its opening system reminder, within the first few records.
 */
const MODEL_SEARCH_LINES = 500;

/** How much of a line is searched for it: the reminder is short; a pasted file need not be read. */
const MODEL_SEARCH_BYTES = 64 << 10;

/** The conversation file beside a settings file. */
export const conversationPath = (settingsPath: string): string =>
  `${settingsPath.slice(0, -SETTINGS_SUFFIX.length)}.jsonl`;

/** `Model: <name>` as Droid's opening reminder states it, up to a quote, backslash or bracket. */
function statedModel(line: string): string | null {
  const at = line.indexOf('Model:');
  if (at < 0) return null;
  const name = /^[^"\\[]*/.exec(line.slice(at + 'Model:'.length))![0].trim();
  return name.length > 0 ? modelName(name) || null : null;
}

export function parse(file: SourceFile): ParseResult<null> {
  return readWholeJson(file, (o, facts, ledger) => {
    const sidecar = conversationPath(file.path);
    const reader = new DroidConversationFacts(facts);
    let stated: string | null = null;
    if (existsSync(sidecar)) {
      scanLines(sidecar, 0, (buf, s, e, _unterminated, index) => {
        if (stated === null && index < MODEL_SEARCH_LINES)
          stated = statedModel(buf.toString('utf8', s, Math.min(e, s + MODEL_SEARCH_BYTES)));
        const r = parseObjectAt(buf, s, e);
        // A conversation line that is not a record (or is still being written) adds nothing: the
        // session's cost is in the settings, which were read whole.
        if (r === null) return false;
        reader.record(recordFrom(r));
        return true;
      });
    }
    reader.finish();
    facts.sessionId ??= file.sessionHint;
    readSettings(settingsFrom(o), facts.sessionId ?? file.path, stated, file.mtimeMs, facts, ledger);
  });
}
