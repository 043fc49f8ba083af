/**
 * The one walk over a Claude line's bytes: its own members are located, and its two big ones, the
 * `message` and the `toolUseResult`, are stepped through once, noting on the way the message's
 * members, its content blocks, its usage (`bytes-usage.ts`) and the patch's added and removed lines.
 * The projection (`bytes.ts`) then reads what was noted instead of walking anything again.
 *
 * Not here: what a line means. The walk notes; the projection decides which notes a line keeps. The
 * notes are module scratch, reused line after line: the walk is not re-entrant, nor needs to be (a
 * line is projected before the next is walked).
 */
import {
  elements,
  has,
  Interner,
  IS,
  Keys,
  kind,
  lineObject,
  MemberLog,
  members,
  stringAt,
} from '../skim.js';
import { flag, idAt, str, txt } from './bytes-spans.js';
import { forgetUsage, walkUsage } from './bytes-usage.js';
import type { ClaudeLine } from './record.js';

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
  'isVirtual',
  'ranByToolUseId',
]);
export const T = {
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
  isVirtual: 21,
  ranByToolUseId: 22,
} as const;

const MESSAGE = new Keys(['role', 'id', 'model', 'stop_reason', 'usage', 'content']);
export const M = { role: 0, id: 1, model: 2, stop_reason: 3, usage: 4, content: 5 } as const;

const BLOCK = new Keys(['type', 'id', 'name', 'tool_use_id', 'is_error', 'text']);
const B = { type: 0, id: 1, name: 2, tool_use_id: 3, is_error: 4, text: 5 } as const;

const PATCH = new Keys(['structuredPatch']);
const HUNK = new Keys(['lines']);

const word = (w: string) => Buffer.from(w, 'utf8');
export const W = {
  assistant: word('assistant'),
};

/** What one content block said, as spans into the line. */
export interface Block {
  kind: 'text' | 'tool_use' | 'tool_result' | 'other';
  id: number | null;
  name: string | null;
  isError: boolean;
  /** The `text` member's span when it is a string, else -1. */
  textStart: number;
  textEnd: number;
}

// Scratch, reused line after line.
/** The line's own members, by `T` slot. */
export const top = new Int32Array(TOP.names.length * 2);
/** The last message walked's members, by `M` slot. */
export const msg = new Int32Array(MESSAGE.names.length * 2);
const blk = new Int32Array(BLOCK.names.length * 2);
const one = new Int32Array(2);
const hunk = new Int32Array(2);
/** Every member of the line last walked whole, for drift's sample of its keys (`known.ts`). */
export const topLog = new MemberLog();
/** The current message's blocks are `blocks[0..noted.blockCount)`; the records are reused line after line. */
export const blocks: Block[] = [];

/** What the walk noted of the line beyond the spans, for the projection. */
interface Notes {
  /** Whether the line's own `message` was an object, and walked. */
  sawMessage: boolean;
  blockCount: number;
  /** The first byte of the last message's `content` (0 when it had none) and where it starts. */
  contentKind: number;
  contentStart: number;
  /** The `+`/`-` lines of the tool result's `structuredPatch`, when it had one. */
  patch: ClaudeLine['patch'];
}

export const noted: Notes = {
  sawMessage: false,
  blockCount: 0,
  contentKind: 0,
  contentStart: -1,
  patch: null,
};

/**
 * The line being walked and where the value being walked ends, for the walk's callbacks: module
 * functions rather than closures made afresh for every line and message.
 */
let cur: Buffer = Buffer.alloc(0);
let curEnd = 0;

/** A tool's name repeats on nearly every tool call: decoded once, recognised after that. */
const toolNames = new Interner();
/** A block's `type` is one of a handful of words: decoded once each, recognised after that. */
const blockTypes = new Interner();

/** Whether the string value at `b[s..e)` starts with the character `c` once decoded. */
function startsWith(b: Buffer, s: number, e: number, c: number): boolean {
  const first = b[s + 1];
  if (first === c) return true;
  // Only an escape can spell `c` some other way (`\u002b`); decode that rare case.
  return first === 0x5c && stringAt(b, s, e)?.charCodeAt(0) === c;
}

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
    noted.patch = { added, removed };
    return after;
  });
}

/** Walk the line at `b[start..end)`, noting what is inside; throws `SkimError` when it is not a JSON object. */
export function walkLine(b: Buffer, start: number, end: number): void {
  cur = b;
  curEnd = end;
  noted.sawMessage = false;
  noted.patch = null;
  noted.blockCount = 0;
  noted.contentKind = 0;
  lineObject(b, start, end, TOP, top, visitTop, topLog);
}

/** A message's `content`: its blocks are noted as the array is walked. */
function visitMessage(slot: number, cs: number): number {
  if (slot === M.usage) return walkUsage(cur, cs, curEnd);
  if (slot !== M.content) return -1;
  noted.contentKind = kind(cur, cs);
  noted.contentStart = cs;
  if (noted.contentKind !== IS.ARRAY) return -1;
  // A repeated `content` adds its blocks to the first one's, as this extractor always has.
  return elements(cur, cs, curEnd, noteBlock);
}

function noteBlock(bs: number, be: number): void {
  const b = cur;
  if (kind(b, bs) !== IS.OBJECT) return;
  members(b, bs, be, BLOCK, blk);
  let block = blocks[noted.blockCount];
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
  noted.blockCount++;
  // The type read once and compared as a string (what `is` would say of each word in turn): one
  // decoder in the compiled walk rather than three.
  const type = str(b, blk, B.type, blockTypes);
  if (type === 'text') {
    block.kind = 'text';
    if (has(blk, B.text) && kind(b, blk[2 * B.text]!) === IS.STRING) {
      block.textStart = blk[2 * B.text]!;
      block.textEnd = blk[2 * B.text + 1]!;
    }
  } else if (type === 'tool_use') {
    block.kind = 'tool_use';
    block.id = idAt(b, blk, B.id);
    block.name = txt(b, blk, B.name, toolNames);
  } else if (type === 'tool_result') {
    block.kind = 'tool_result';
    block.id = idAt(b, blk, B.tool_use_id);
    block.isError = flag(b, blk, B.is_error);
  }
}

/** Walk the message object at `cur[vs]` (ending by `end`), noting its members and content blocks; returns where it ends. */
export function walkMessage(vs: number, end: number): number {
  noted.blockCount = 0;
  forgetUsage();
  noted.contentKind = 0;
  curEnd = end;
  return members(cur, vs, end, MESSAGE, msg, visitMessage);
}

/** The line's own members: the message and the tool result are walked for what is inside. */
function visitTop(slot: number, vs: number): number {
  if (slot === T.message) {
    if (kind(cur, vs) !== IS.OBJECT) return -1;
    noted.sawMessage = true;
    return walkMessage(vs, curEnd);
  }
  if (slot === T.toolUseResult) {
    noted.patch = null;
    return walkToolResult(cur, vs, curEnd);
  }
  return -1;
}
