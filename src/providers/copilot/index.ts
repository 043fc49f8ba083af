/**
 * GitHub Copilot CLI: `session-state/<id>/events.jsonl` under `$COPILOT_HOME` or `~/.copilot`, and
 * the older flat `session-state/<id>.jsonl` (and `history-session-state/<id>.jsonl`). Beside an
 * `events.jsonl`, `workspace.yaml` holds the summary Copilot wrote for the session: its title. Finding the sessions and the window
 * rules are in `place.ts`; reading them is here.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { oneLine } from '../../model/facts.js';
import { type JsonObject, obj, parseObjectAt, text } from '../../model/json.js';
import { scanLines } from '../jsonl.js';
import { extracting, readJsonl } from '../read.js';
import type { ConversationOptions, ParseResult, Provider, SourceFile } from '../types.js';
import { CopilotCalls } from './calls.js';
import { CopilotConversation } from './conversation.js';
import { type CopilotCarry, CopilotParser, emptyCopilotCarry } from './parser.js';
import { copilotPlace } from './place.js';
import { lineFromBytes, lineFromJson } from './record.js';

export { copilotPlace, copilotRoots } from './place.js';

/** `workspace.yaml` is a handful of keys; only its first bytes are read. */
const MAX_WORKSPACE_BYTES = 64 << 10;

/** The `summary:` of a `workspace.yaml` (a plain or quoted scalar, or a `|`/`>` block). */
export function workspaceSummary(yaml: string): string | null {
  const lines = yaml.split('\n');
  const at = lines.findIndex((l) => /^summary:/.test(l));
  if (at === -1) return null;
  let value = lines[at]!.slice('summary:'.length).trim();
  if (/^[|>][+-]?$/.test(value)) {
    const block: string[] = [];
    for (const l of lines.slice(at + 1)) {
      if (l.length > 0 && !/^\s/.test(l)) break;
      block.push(l.trim());
    }
    value = block.join(' ');
  } else if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) {
    const quote = value[0];
    value = value.slice(1, -1);
    value = quote === "'" ? value.replace(/''/g, "'") : value.replace(/\\"/g, '"').replace(/\\n/g, ' ');
  }
  const t = oneLine(value);
  return t.length > 0 ? t : null;
}

function readSummary(eventsPath: string): string | null {
  let fd: number;
  try {
    fd = openSync(join(dirname(eventsPath), 'workspace.yaml'), 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_WORKSPACE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return workspaceSummary(buf.toString('utf8', 0, n));
  } finally {
    closeSync(fd);
  }
}

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  const result = readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new CopilotParser(facts, (carry as CopilotCarry | null) ?? emptyCopilotCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
  if (basename(file.path) === 'events.jsonl') {
    const summary = readSummary(file.path);
    if (summary !== null) result.facts.titles.ai = summary;
  }
  return result;
}

/** A subagent is named by the call that started it: anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** `session.snapshot_rewind` lines honoured per session; past this a rewind is ignored. */
const MAX_REWINDS = 4096;

const REWIND_MARK = Buffer.from('"session.snapshot_rewind"');

/**
 * The first pass: which event each `session.snapshot_rewind` took back (with everything after it),
 * and on which line (numbered as `scanLines` offers them, the same in both passes).
 */
function rewindsOf(path: string): Map<string, number> {
  const rewinds = new Map<string, number>();
  let n = 0;
  scanLines(path, 0, (buf, start, end) => {
    const at = n++;
    const mark = buf.indexOf(REWIND_MARK, start);
    if (mark === -1 || mark >= end || rewinds.size >= MAX_REWINDS) return true;
    const e = parseObjectAt(buf, start, end);
    const to = e?.type === 'session.snapshot_rewind' ? text(obj(e.data)?.upToEventId) : null;
    if (to !== null) rewinds.set(to, at);
    return true;
  });
  return rewinds;
}

/** Every event of a session in order, but those a `session.snapshot_rewind` took back. */
function eachEvent(path: string, each: (event: JsonObject) => void): void {
  const rewinds = rewindsOf(path);
  let n = 0;
  // Events from a rewound one up to the rewind that took them back are not shown.
  let skipUntil = -1;
  scanLines(path, 0, (buf, start, end, unterminated) => {
    const e = parseObjectAt(buf, start, end);
    if (e === null && unterminated) return false;
    const at = n++;
    if (e === null || at < skipUntil) return true;
    const id = text(e.id);
    const rewoundAt = id === null ? undefined : rewinds.get(id);
    if (rewoundAt !== undefined && rewoundAt > at) skipUntil = rewoundAt;
    else each(e);
    return true;
  });
}

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && !AGENT_ID.test(o.agent))
    return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
  const sink = new TurnSink(o.before);
  const reader = new CopilotConversation(sink, o.agent);
  try {
    eachEvent(path, (e) => reader.event(e));
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of a session, its subagents' included, as the conversation shows them. */
function calls(path: string): CallLog {
  const reader = new CopilotCalls();
  eachEvent(path, (e) => reader.event(e));
  return reader.c.log;
}

export const copilot: Provider = { ...copilotPlace, parse, conversation, calls };
