/**
 * Reading a Kimi CLI wire file into facts and ledger records: what the index calls for every changed
 * file, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the files (`place.ts`).
 *
 * The model comes from the `config.json` at the root the file was found under (`model`), as ccusage
 * reads it; Kimi's default, `kimi-for-coding`, when there is none. Known limit: a config changed after
 * a wire file was read applies only to the steps read after it.
 */
import { basename, dirname, join } from 'node:path';
import { obj, parseJson, text } from '../../model/json.js';
import { readHead } from '../fsutil.js';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { codeLineFromBytes, codeLineFromJson } from './code-record.js';
import { emptyKimiCarry, type KimiCarry, KimiParser } from './parser.js';
import { CODE_AGENTS_DIR } from './place.js';
import { lineFromBytes, lineFromJson } from './record.js';

/** The model Kimi CLI uses when its config names none: the Kimi Code subscription's. */
export const DEFAULT_MODEL = 'kimi-for-coding';

/** A config is a few hundred bytes; one larger than this is not Kimi's, and its model is not read. */
const MAX_CONFIG_BYTES = 64 * 1024;

export function configuredModel(root: string): string {
  const head = readHead(join(root, 'config.json'), MAX_CONFIG_BYTES);
  if (head === null || !head.whole) return DEFAULT_MODEL;
  // A config that is not JSON (mid-write, or hand-edited) names no model: the default applies.
  return text(obj(parseJson(head.text))?.model) ?? DEFAULT_MODEL;
}

/** Whether `path` is a Kimi Code agent's wire (`…/agents/<agent>/wire.jsonl`) rather than Kimi CLI's. */
export const isCodeWire = (path: string): boolean => basename(dirname(dirname(path))) === CODE_AGENTS_DIR;

export function parse(file: SourceFile, previous: ParseResult<KimiCarry> | null): ParseResult<KimiCarry> {
  const code = isCodeWire(file.path);
  // Kimi Code's lines name their model; a line that names none is Kimi's default's.
  const model = code ? DEFAULT_MODEL : configuredModel(file.root);
  const session = file.sessionHint ?? basename(dirname(file.path));
  // Each agent of a Kimi Code session bills its own requests: its name keeps their identities apart.
  const identity = code ? `${session}/${basename(dirname(file.path))}` : session;
  return readJsonl(file, previous, (facts, carry, ledger) => {
    facts.sessionId ??= session;
    const parser = new KimiParser(facts, carry ?? emptyKimiCarry(), ledger, identity, model);
    const line = code
      ? extracting(codeLineFromBytes, codeLineFromJson, (l) => parser.line(l))
      : extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
