/**
 * The fast Claude extractor: `ClaudeLine` straight from a line's bytes, equal to `lineFromJson` of
 * the parsed line (the tests prove it on every corpus line).
 *
 * One walk over the line (`bytes-walk.ts`): the message and the tool result, nearly all of a
 * transcript's bytes, are stepped through once, noting the content blocks and patch lines on the way;
 * only the small values (ids, names, the usage numbers) are decoded (`bytes-spans.ts`,
 * `bytes-usage.ts`), and values that repeat on every line (cwd, session, branch, model) are decoded
 * once and recognised after that.
 *
 * This module is the projection: it reads what the walk noted into a `ClaudeLine`, deciding what each
 * kind of line keeps. It walks nothing itself but the small wrapper of a progress line's nested
 * message.
 */
import { isoMs } from '../../model/json.js';
import type { IdHash } from '../../model/ledger.js';
import {
  has,
  Interner,
  IS,
  isoMsAt,
  Keys,
  keyEscaped,
  kind,
  members,
  objectLine,
  stringPrefixAt,
} from '../skim.js';
import { flag, hashAt, idAt, is, objectAt, str, txt } from './bytes-spans.js';
import { usageAt } from './bytes-usage.js';
import { blocks, M, msg, noted, T, top, W, walkLine, walkMessage } from './bytes-walk.js';
import { type ClaudeLine, emptyLine, lineFromJson, MAX_PROMPT_CHARS } from './record.js';

/** A progress line's `data`, and the wrapper of the nested agent's message in it. */
const DATA = new Keys(['message']);
const WRAPPED = new Keys(['message', 'requestId', 'timestamp']);

// Scratch, reused line after line (the extractor is not re-entrant, nor needs to be).
const one = new Int32Array(2);
const wrap = new Int32Array(WRAPPED.names.length * 2);

/** Values that repeat on nearly every line: decoded once, recognised after that. */
const memo = {
  sessionId: new Interner(),
  cwd: new Interner(),
  gitBranch: new Interner(),
  permissionMode: new Interner(),
  model: new Interner(),
  agentId: new Interner(),
  subtype: new Interner(),
  stopReason: new Interner(),
  type: new Interner(),
};

function fromMessage(b: Buffer, line: ClaudeLine, requestId: IdHash | null): void {
  const assistant = is(b, msg, M.role, W.assistant);
  if (line.type === 'assistant' || line.nested || assistant) {
    line.messageId = hashAt(b, msg, M.id);
    line.requestId = requestId;
    line.model = txt(b, msg, M.model, memo.model);
    line.stopReason = str(b, msg, M.stop_reason, memo.stopReason);
    const u = objectAt(b, msg, M.usage);
    if (u) line.usage = usageAt(b, u[0], u[1], line);
    for (let k = 0; k < noted.blockCount; k++) {
      const block = blocks[k]!;
      if (block.kind === 'text') line.hasText = true;
      else if (block.kind === 'tool_use' && block.name)
        line.toolUses.push({ id: block.id, name: block.name });
    }
  } else if (line.type === 'user') {
    let prompt: string | null = null;
    if (noted.contentKind === IS.STRING)
      prompt = stringPrefixAt(b, noted.contentStart, msg[2 * M.content + 1]!, MAX_PROMPT_CHARS);
    for (let k = 0; k < noted.blockCount; k++) {
      const block = blocks[k]!;
      if (block.kind === 'tool_result') line.toolResults.push({ id: block.id, isError: block.isError });
    }
    if (line.toolResults.length === 0 && !line.isMeta && !line.isCompactSummary) {
      if (prompt === null) {
        for (let k = 0; k < noted.blockCount; k++) {
          const first = blocks[k]!;
          if (first.kind === 'text' && first.textStart >= 0) {
            prompt = stringPrefixAt(b, first.textStart, first.textEnd, MAX_PROMPT_CHARS);
            break;
          }
        }
      }
      line.prompt = prompt;
    }
    line.patch = noted.patch;
  }
}

/** Project a line from its bytes; throws `SkimError` when it is not a JSON object. */
export function lineFromBytes(b: Buffer, start: number, end: number): ClaudeLine {
  walkLine(b, start, end);
  const line = emptyLine();
  line.type = str(b, top, T.type, memo.type);
  line.subtype = str(b, top, T.subtype, memo.subtype);
  line.ms = has(top, T.timestamp)
    ? isoMsAt(b, top[2 * T.timestamp]!, top[2 * T.timestamp + 1]!, isoMs)
    : null;
  line.uuid = idAt(b, top, T.uuid);
  line.sessionId = txt(b, top, T.sessionId, memo.sessionId);
  line.cwd = txt(b, top, T.cwd, memo.cwd);
  line.gitBranch = txt(b, top, T.gitBranch, memo.gitBranch);
  line.sidechain = flag(b, top, T.isSidechain);
  line.agentId = txt(b, top, T.agentId, memo.agentId);
  line.permissionMode = txt(b, top, T.permissionMode, memo.permissionMode);
  line.customTitle = txt(b, top, T.customTitle);
  line.aiTitle = txt(b, top, T.aiTitle);
  line.isMeta = flag(b, top, T.isMeta);
  line.isCompactSummary = flag(b, top, T.isCompactSummary);
  line.isApiErrorMessage = flag(b, top, T.isApiErrorMessage);
  if (line.type === 'summary') {
    const leaf = idAt(b, top, T.leafUuid);
    const s = txt(b, top, T.summary);
    if (leaf !== null && s) line.summary = { leaf, text: s };
  }
  // A repeated `message` key: the walk noted the last one, which is the one JSON.parse keeps. A
  // repeated `toolUseResult` likewise; both are vanishingly rare and the tests cover them.
  let requestId = hashAt(b, top, T.requestId);
  // A virtual row (`isVirtualRow` in record.ts) keeps no message: its calls are the harness's.
  const virtual =
    line.type === 'host-row' ||
    flag(b, top, T.isVirtual) ||
    (has(top, T.ranByToolUseId) && kind(b, top[2 * T.ranByToolUseId]!) === IS.STRING);
  let haveMessage = !virtual && noted.sawMessage && objectAt(b, top, T.message) !== null;
  if (line.type === 'progress' && !virtual) {
    haveMessage = false;
    const data = objectAt(b, top, T.data);
    if (data) {
      members(b, data[0], data[1], DATA, one);
      if (has(one, 0) && kind(b, one[0]!) === IS.OBJECT) {
        members(b, one[0]!, one[1]!, WRAPPED, wrap);
        const inner = objectAt(b, wrap, 0);
        if (inner) {
          walkMessage(inner[0], inner[1]);
          if (objectAt(b, msg, M.usage)) {
            haveMessage = true;
            requestId = hashAt(b, wrap, 1);
            line.sidechain = true;
            line.nested = true;
            const ms = has(wrap, 2) ? isoMsAt(b, wrap[4]!, wrap[5]!, isoMs) : null;
            if (ms !== null) line.ms = ms;
          }
        }
      }
    }
  }
  if (haveMessage) fromMessage(b, line, requestId);
  // A key written with an escape (`"\u0074ype"`) is the key it spells to a full parse, but not to
  // the walk, which compares bytes: such a line, which no Claude Code writes, is read by the parse.
  if (keyEscaped()) return lineFromJson(objectLine(b, start, end));
  return line;
}
