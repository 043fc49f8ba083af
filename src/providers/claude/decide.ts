/**
 * Claude Code's deciding hook (`PermissionRequest`, installed by `cctop hooks install --approvals`):
 * what a held request asks, what Claude Code reads as the answer, and how its transcript shows that
 * the person answered its own dialog first.
 *
 * Checked with 2.1.328's TUI in the lab: while the hook runs, Claude Code shows its own "Do you want
 * to proceed?" dialog; when the hook prints an allow, the dialog closes and the call runs; a deny's
 * `message` is what the model is told. A hook that prints nothing leaves the dialog to the person.
 * The payload carries `tool_name`, `tool_input`, `session_id` and `transcript_path`, and no id of the
 * tool call, so the call is found in the transcript: its last `tool_use` of that tool.
 *
 * - AskUserQuestion (questions that want words): allowed with `updatedInput`, the tool's input plus
 *   `answers` (each question's text → the answer), which Claude Code hands to the model as the
 *   person's choice.
 * - ExitPlanMode (a plan to accept): allow accepts it; words (or a deny's reason) send it back with
 *   them.
 *
 * Loaded by `cctop hook` only for a held event; nothing else imports it.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { AskKind, HookDecider, Verdict } from '../../approvals/types.js';
import { arr, type JsonObject, obj, str } from '../../model/json.js';

/** The events Claude Code lets a hook decide. */
const EVENTS = ['PermissionRequest'] as const;

const QUESTION_TOOL = 'AskUserQuestion';
const PLAN_TOOL = 'ExitPlanMode';

/** What the model reads for a deny that came with no reason. */
const DENIED = 'The user denied this tool call (answered from cctop).';

/**
 * How much of the transcript's end is read to find the call when the hold starts: the call is in
 * the newest assistant record, which carries the model's whole response (a long text and a large
 * edit's input can make it some hundreds of KiB).
 */
const TAIL_BYTES = 1024 * 1024;
/** The most of the transcript read per look for the call's result (what was appended since the last look). */
const STEP_BYTES = 1024 * 1024;

function ask(payload: JsonObject): { kind: AskKind; questions: string[] } {
  const tool = str(payload.tool_name);
  if (tool === QUESTION_TOOL) {
    const qs = arr(obj(payload.tool_input)?.questions) ?? [];
    return { kind: 'question', questions: qs.flatMap((q) => str(obj(q)?.question) ?? []) };
  }
  if (tool === PLAN_TOOL) return { kind: 'plan', questions: [] };
  return { kind: 'permission', questions: [] };
}

const decision = (d: JsonObject): string =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: d } });

function render(v: Verdict, payload: JsonObject): string | null {
  const tool = str(payload.tool_name);
  switch (v.kind) {
    case 'allow':
      return tool === QUESTION_TOOL ? null : decision({ behavior: 'allow' });
    case 'deny':
      return decision({ behavior: 'deny', message: v.reason ?? DENIED });
    case 'text': {
      if (tool === QUESTION_TOOL) {
        const input = obj(payload.tool_input) ?? {};
        const answers: JsonObject = {};
        for (const q of ask(payload).questions) answers[q] = v.text;
        return decision({ behavior: 'allow', updatedInput: { ...input, answers } });
      }
      if (tool === PLAN_TOOL) return decision({ behavior: 'deny', message: v.text });
      return null;
    }
  }
}

function readRange(path: string, from: number, to: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.max(0, to - from));
    const n = readSync(fd, buf, 0, buf.length, from);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

const sizeOf = (path: string): number | null => {
  try {
    return statSync(path).size;
  } catch {
    // No transcript (yet): nothing to watch.
    return null;
  }
};

/** The id of the newest `tool_use` of `tool` in `text` (a transcript's tail), or null. */
export function lastCallId(text: string, tool: string): string | null {
  let found: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.includes('"tool_use"')) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      // The tail's first line is usually cut: not a record.
      continue;
    }
    for (const part of arr(obj(obj(rec)?.message)?.content) ?? []) {
      const p = obj(part);
      if (p?.type === 'tool_use' && p.name === tool && typeof p.id === 'string') found = p.id;
    }
  }
  return found;
}

/**
 * Whether the session moved on: a result for the held call (or, when the call was not found, for any
 * call) appended to the transcript since the hold began. A result is there once the call ran or was
 * refused in the dialog.
 */
function watch(payload: JsonObject): () => boolean {
  const path = str(payload.transcript_path);
  const tool = str(payload.tool_name);
  if (path === null) return () => false;
  const start = sizeOf(path);
  if (start === null) return () => false;
  const id =
    tool === null
      ? null
      : lastCallId(readRange(path, Math.max(0, start - TAIL_BYTES), start).toString('utf8'), tool);
  const needle = id === null ? '"tool_result"' : `"tool_use_id":"${id}"`;
  let at = start;
  let carry = '';
  return () => {
    const size = sizeOf(path);
    if (size === null || size <= at) return false;
    const bytes = readRange(path, at, Math.min(size, at + STEP_BYTES));
    at += bytes.length;
    const chunk = bytes.toString('utf8');
    const seen = (carry + chunk).includes(needle);
    carry = chunk.slice(-needle.length);
    return seen;
  };
}

export const claudeDecider: HookDecider = { events: EVENTS, ask, render, watch };
