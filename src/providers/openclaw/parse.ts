/**
 * Reading an OpenClaw session file into facts and ledger records. OpenClaw runs its agents on Pi's
 * agent core and writes Pi's session format (a `session` header, `model_change`, `message` entries
 * whose assistant messages carry `usage` with the harness's own `cost.total`), so Pi's line reader
 * and parser read it; what OpenClaw adds is read here: a `custom` entry of `customType`
 * `model-snapshot`, whose `data` names the model (`modelId`, else `model`) the next responses use.
 *
 * Not here: finding the files (`place.ts`).
 */
import { type JsonObject, obj, str, text } from '../../model/json.js';
import { emptyPiCarry, type PiCarry, PiParser } from '../pi/parser.js';
import { type PiLine, lineFromJson as piLine } from '../pi/record.js';
import { extracting, readJsonl } from '../read.js';
import { objectLine } from '../skim.js';
import type { ParseResult, SourceFile } from '../types.js';

export function lineFromJson(o: JsonObject): PiLine {
  if (str(o.type) === 'custom' && str(o.customType) === 'model-snapshot') {
    const data = obj(o.data);
    const model = text(data?.modelId) ?? text(data?.model);
    return model === null ? { kind: 'other', ms: null } : { kind: 'model', ms: null, model };
  }
  return piLine(o);
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for OpenClaw). */
export const lineFromBytes = (b: Buffer, s: number, e: number): PiLine => lineFromJson(objectLine(b, s, e));

export function parse(file: SourceFile, previous: ParseResult<PiCarry> | null): ParseResult<PiCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new PiParser(facts, carry ?? emptyPiCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
