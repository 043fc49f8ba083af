/**
 * The fast Claude extractor: `ClaudeLine` straight from a line's bytes, equal to `lineFromJson` of
 * the parsed line (the tests prove it on every corpus line).
 *
 * One walk over the line: the message and the tool result, nearly all of a transcript's bytes, are
 * stepped through once, noting the content blocks and patch lines on the way; only the small values
 * (ids, names, the usage numbers) are decoded, and values that repeat on every line (cwd, session,
 * branch, model) are decoded once and recognised after that.
 */
import { isoMs, type JsonObject, obj } from '../../model/json.js';
import { hashBytesUnless, hashString, type IdHash, idNumber } from '../../model/ledger.js';
import {
  elements,
  has,
  Interner,
  IS,
  isoMsAt,
  isTrue,
  Keys,
  kind,
  lineObject,
  members,
  numberAt,
  SkimError,
  stringAt,
  stringIs,
  stringPrefixAt,
  value,
} from '../skim.js';
import { type ClaudeLine, type ClaudeUsage, emptyLine, MAX_PROMPT_CHARS, readUsage } from './record.js';

const TOP = new Keys([
  'type',
  'subtype',
  'timestamp',
  'uuid',
  'sessionId',
  'cwd',
  'gitBranch',
  'isSidechain',
  'agentId',
  'permissionMode',
  'customTitle',
  'aiTitle',
  'isMeta',
  'isCompactSummary',
  'isApiErrorMessage',
  'leafUuid',
  'summary',
  'message',
  'requestId',
  'toolUseResult',
  'data',
]);
const T = {
  type: 0,
  subtype: 1,
  timestamp: 2,
  uuid: 3,
  sessionId: 4,
  cwd: 5,
  gitBranch: 6,
  isSidechain: 7,
  agentId: 8,
  permissionMode: 9,
  customTitle: 10,
  aiTitle: 11,
  isMeta: 12,
  isCompactSummary: 13,
  isApiErrorMessage: 14,
  leafUuid: 15,
  summary: 16,
  message: 17,
  requestId: 18,
  toolUseResult: 19,
  data: 20,
} as const;

const MESSAGE = new Keys(['role', 'id', 'model', 'stop_reason', 'usage', 'content']);
const M = { role: 0, id: 1, model: 2, stop_reason: 3, usage: 4, content: 5 } as const;

const BLOCK = new Keys(['type', 'id', 'name', 'tool_use_id', 'is_error', 'text']);
const B = { type: 0, id: 1, name: 2, tool_use_id: 3, is_error: 4, text: 5 } as const;

const USAGE = new Keys([
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'cache_creation',
  'output_tokens_details',
  'iterations',
]);
const U = { input: 0, output: 1, read: 2, write: 3, split: 4, details: 5, iterations: 6 } as const;
const ONE_HOUR = new Keys(['ephemeral_1h_input_tokens']);
const THINKING = new Keys(['thinking_tokens']);

const PATCH = new Keys(['structuredPatch']);
const HUNK = new Keys(['lines']);
const DATA = new Keys(['message']);
const WRAPPED = new Keys(['message', 'requestId', 'timestamp']);

const word = (w: string) => Buffer.from(w, 'utf8');
const W = {
  assistant: word('assistant'),
  user: word('user'),
  summary: word('summary'),
  progress: word('progress'),
  text: word('text'),
  toolUse: word('tool_use'),
  toolResult: word('tool_result'),
};

/** What one content block said, as spans into the line. */
interface Block {
  kind: 'text' | 'tool_use' | 'tool_result' | 'other';
  id: number | null;
  name: string | null;
  isError: boolean;
  /** The `text` member's span when it is a string, else -1. */
  textStart: number;
  textEnd: number;
}

// Scratch, reused line after line (the extractor is not re-entrant, nor needs to be).
const top = new Int32Array(TOP.names.length * 2);
const msg = new Int32Array(MESSAGE.names.length * 2);
const blk = new Int32Array(BLOCK.names.length * 2);
const use = new Int32Array(USAGE.names.length * 2);
const one = new Int32Array(2);
const wrap = new Int32Array(WRAPPED.names.length * 2);
/** The current message's blocks are `blocks[0..blockCount)`; the records are reused line after line. */
const blocks: Block[] = [];
let blockCount = 0;
let contentKind = 0;
let contentStart = -1;
let contentEnd = -1;
let patch: { added: number; removed: number } | null = null;

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
  role: new Interner(),
  toolName: new Interner(),
};

function span(spans: Int32Array, slot: number): [number, number] {
  return [spans[2 * slot]!, spans[2 * slot + 1]!];
}

function str(b: Buffer, spans: Int32Array, slot: number, m?: Interner): string | null {
  const s = spans[2 * slot]!;
  if (s < 0) return null;
  const e = spans[2 * slot + 1]!;
  return m ? m.at(b, s, e) : stringAt(b, s, e);
}

/** A non-empty string, as `text()` reads parsed JSON. */
function txt(b: Buffer, spans: Int32Array, slot: number, m?: Interner): string | null {
  const s = str(b, spans, slot, m);
  return s !== null && s.length > 0 ? s : null;
}

/**
 * `hashString(text(value))` without decoding: a plain ASCII id is hashed straight from its bytes;
 * anything with an escape or a non-ASCII byte is decoded first, to hash exactly what a parse sees.
 */
function hashAt(b: Buffer, spans: Int32Array, slot: number): IdHash | null {
  if (!has(spans, slot)) return null;
  const s = spans[2 * slot]!;
  const e = spans[2 * slot + 1]!;
  if (b[s] !== 0x22 || e - s <= 2) return null;
  const plain = hashBytesUnless(b, s + 1, e - 1, NOT_PLAIN);
  if (plain !== null) return plain;
  const v = stringAt(b, s, e);
  return v === null || v.length === 0 ? null : hashString(v);
}

/** Bytes that mean an id must be decoded before it is hashed: an escape, or any non-ASCII byte. */
const NOT_PLAIN = new Uint8Array(256);
NOT_PLAIN[0x5c] = 1;
NOT_PLAIN.fill(1, 0x80);

function idAt(b: Buffer, spans: Int32Array, slot: number): number | null {
  const h = hashAt(b, spans, slot);
  return h === null ? null : idNumber(h);
}

function flag(b: Buffer, spans: Int32Array, slot: number): boolean {
  return has(spans, slot) && isTrue(b, spans[2 * slot]!, spans[2 * slot + 1]!);
}

function is(b: Buffer, spans: Int32Array, slot: number, w: Uint8Array): boolean {
  return has(spans, slot) && stringIs(b, spans[2 * slot]!, spans[2 * slot + 1]!, w);
}

function objectAt(b: Buffer, spans: Int32Array, slot: number): [number, number] | null {
  return has(spans, slot) && kind(b, spans[2 * slot]!) === IS.OBJECT ? span(spans, slot) : null;
}

function count(b: Buffer, spans: Int32Array, slot: number): number | null {
  const s = spans[2 * slot]!;
  if (s < 0) return null;
  const n = numberAt(b, s, spans[2 * slot + 1]!);
  return n !== null && n >= 0 ? n : null;
}

/** Whether the string value at `b[s..e)` starts with the character `c` once decoded. */
function startsWith(b: Buffer, s: number, e: number, c: number): boolean {
  const first = b[s + 1];
  if (first === c) return true;
  // Only an escape can spell `c` some other way (`\u002b`); decode that rare case.
  return first === 0x5c && stringAt(b, s, e)?.charCodeAt(0) === c;
}

const hunk = new Int32Array(2);

/** Count `+`/`-` lines of `structuredPatch` while walking a tool result; returns where it ends. */
function walkToolResult(b: Buffer, vs: number, end: number): number {
  if (kind(b, vs) !== IS.OBJECT) return -1;
  return members(b, vs, end, PATCH, one, (_, ps) => {
    if (kind(b, ps) !== IS.ARRAY) return -1;
    let added = 0;
    let removed = 0;
    const after = elements(b, ps, end, (hs, he) => {
      if (kind(b, hs) !== IS.OBJECT) return;
      members(b, hs, he, HUNK, hunk, (__, ls) => {
        if (kind(b, ls) !== IS.ARRAY) return -1;
        return elements(b, ls, he, (s, e) => {
          if (kind(b, s) !== IS.STRING) return;
          if (startsWith(b, s, e, 0x2b)) added++;
          else if (startsWith(b, s, e, 0x2d)) removed++;
        });
      });
    });
    patch = { added, removed };
    return after;
  });
}

/**
 * The line being walked and where the value being walked ends, for the walk's callbacks: module
 * functions rather than closures made afresh for every line and message.
 */
let cur: Buffer = Buffer.alloc(0);
let curEnd = 0;
let sawMessage = false;

/** Where the usage object whose members `use` holds starts, or -1. */
let usageWalkedAt = -1;

/**
 * A message's `usage` is read where it stands rather than skipped and walked again later. One the
 * member walk rejects is left to be skipped: it makes the line bad only if it is the usage read (the
 * last one, of an assistant message), which is then walked again and rejected as before.
 */
function walkUsage(us: number): number {
  if (kind(cur, us) !== IS.OBJECT) return -1;
  try {
    const after = members(cur, us, curEnd, USAGE, use);
    usageWalkedAt = us;
    return after;
  } catch (err) {
    if (err instanceof SkimError) return -1;
    throw err;
  }
}

/** A message's `content`: its blocks are noted as the array is walked. */
function visitMessage(slot: number, cs: number): number {
  if (slot === M.usage) return walkUsage(cs);
  if (slot !== M.content) return -1;
  contentKind = kind(cur, cs);
  contentStart = cs;
  if (contentKind !== IS.ARRAY) return -1;
  // A repeated `content` adds its blocks to the first one's, as this extractor always has.
  contentEnd = elements(cur, cs, curEnd, noteBlock);
  return contentEnd;
}

function noteBlock(bs: number, be: number): void {
  const b = cur;
  if (kind(b, bs) !== IS.OBJECT) return;
  members(b, bs, be, BLOCK, blk);
  let block = blocks[blockCount];
  if (block === undefined) {
    block = { kind: 'other', id: null, name: null, isError: false, textStart: -1, textEnd: -1 };
    blocks.push(block);
  } else {
    block.kind = 'other';
    block.id = null;
    block.name = null;
    block.isError = false;
    block.textStart = -1;
    block.textEnd = -1;
  }
  blockCount++;
  if (is(b, blk, B.type, W.text)) {
    block.kind = 'text';
    if (has(blk, B.text) && kind(b, blk[2 * B.text]!) === IS.STRING) {
      block.textStart = blk[2 * B.text]!;
      block.textEnd = blk[2 * B.text + 1]!;
    }
  } else if (is(b, blk, B.type, W.toolUse)) {
    block.kind = 'tool_use';
    block.id = idAt(b, blk, B.id);
    block.name = txt(b, blk, B.name, memo.toolName);
  } else if (is(b, blk, B.type, W.toolResult)) {
    block.kind = 'tool_result';
    block.id = idAt(b, blk, B.tool_use_id);
    block.isError = flag(b, blk, B.is_error);
  }
}

/** Walk the message object at `cur[vs]` (ending by `end`), noting its members and content blocks; returns where it ends. */
function walkMessage(vs: number, end: number): number {
  blockCount = 0;
  usageWalkedAt = -1;
  contentKind = 0;
  curEnd = end;
  return members(cur, vs, end, MESSAGE, msg, visitMessage);
}

/** The line's own members: the message and the tool result are walked for what is inside. */
function visitTop(slot: number, vs: number): number {
  if (slot === T.message) {
    if (kind(cur, vs) !== IS.OBJECT) return -1;
    sawMessage = true;
    return walkMessage(vs, curEnd);
  }
  if (slot === T.toolUseResult) {
    patch = null;
    return walkToolResult(cur, vs, curEnd);
  }
  return -1;
}

/** `readUsage` of the usage object, read off the bytes (its rare `iterations` are parsed). */
function usageAt(b: Buffer, s: number, e: number, line: ClaudeLine): ClaudeUsage | null {
  if (s !== usageWalkedAt) members(b, s, e, USAGE, use);
  const input = count(b, use, U.input);
  const output = count(b, use, U.output);
  let usage: ClaudeUsage | null = null;
  if (input !== null || output !== null) {
    const write = count(b, use, U.write) ?? 0;
    let oneHour = 0;
    const split = objectAt(b, use, U.split);
    if (split) {
      members(b, split[0], split[1], ONE_HOUR, one);
      oneHour = count(b, one, 0) ?? 0;
    }
    let reasoning: number | null = null;
    const details = objectAt(b, use, U.details);
    if (details) {
      members(b, details[0], details[1], THINKING, one);
      reasoning = count(b, one, 0);
    }
    usage = {
      input: input ?? 0,
      output: output ?? 0,
      cacheRead: count(b, use, U.read) ?? 0,
      cacheWrite: write,
      cacheWrite1h: Math.min(oneHour, write),
      reasoning,
    };
  }
  if (has(use, U.iterations) && kind(b, use[2 * U.iterations]!) === IS.ARRAY) {
    for (const it of value(b, ...span(use, U.iterations)) as unknown[]) {
      const i = obj(it);
      const model = i && typeof i.model === 'string' && i.model.length > 0 ? i.model : null;
      const adv = i && i.type === 'advisor_message' ? readUsage(i as JsonObject) : null;
      if (model && adv) line.advisors.push({ model, usage: adv });
    }
  }
  return usage;
}

function fromMessage(b: Buffer, line: ClaudeLine, requestId: IdHash | null): void {
  const assistant = is(b, msg, M.role, W.assistant);
  if (line.type === 'assistant' || line.nested || assistant) {
    line.messageId = hashAt(b, msg, M.id);
    line.requestId = requestId;
    line.model = txt(b, msg, M.model, memo.model);
    line.stopReason = str(b, msg, M.stop_reason, memo.stopReason);
    const u = objectAt(b, msg, M.usage);
    if (u) line.usage = usageAt(b, u[0], u[1], line);
    for (let k = 0; k < blockCount; k++) {
      const block = blocks[k]!;
      if (block.kind === 'text') line.hasText = true;
      else if (block.kind === 'tool_use' && block.name)
        line.toolUses.push({ id: block.id, name: block.name });
    }
  } else if (line.type === 'user') {
    let prompt: string | null = null;
    if (contentKind === IS.STRING)
      prompt = stringPrefixAt(b, contentStart, msg[2 * M.content + 1]!, MAX_PROMPT_CHARS);
    for (let k = 0; k < blockCount; k++) {
      const block = blocks[k]!;
      if (block.kind === 'tool_result') line.toolResults.push({ id: block.id, isError: block.isError });
    }
    if (line.toolResults.length === 0 && !line.isMeta && !line.isCompactSummary) {
      if (prompt === null) {
        for (let k = 0; k < blockCount; k++) {
          const first = blocks[k]!;
          if (first.kind === 'text' && first.textStart >= 0) {
            prompt = stringPrefixAt(b, first.textStart, first.textEnd, MAX_PROMPT_CHARS);
            break;
          }
        }
      }
      line.prompt = prompt;
    }
    line.patch = patch;
  }
}

/** Project a line from its bytes; throws `SkimError` when it is not a JSON object. */
export function lineFromBytes(b: Buffer, start: number, end: number): ClaudeLine {
  cur = b;
  curEnd = end;
  sawMessage = false;
  patch = null;
  blockCount = 0;
  contentKind = 0;
  lineObject(b, start, end, TOP, top, visitTop);
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
  let haveMessage = sawMessage && objectAt(b, top, T.message) !== null;
  if (line.type === 'progress') {
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
  return line;
}
