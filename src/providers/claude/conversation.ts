/**
 * Claude Code's conversation: `user` and `assistant` records into turns.
 *
 * Records that share a request id are one reply (Claude writes each content block as its own record,
 * and with extended thinking nearly every record carries a thinking block); a tool result ends the
 * reply it answers; thinking is a turn of its own; a result lands on its call by id however far
 * later in the file it comes; a compaction summary is a seam, not a message; text the harness put in
 * a user record is the harness speaking, tidied. Who wrote a user row is the row's own word where it
 * gives one (`rowSource`), else read from the text: a slash command typed is the person's, its
 * expansion (`isMeta`) and every tagged block are the harness's, a subagent's prompt is its parent's.
 */
import { type Conversation, type Delta, newTool, type TurnSink } from '../../model/conversation.js';
import { arr, bool, type JsonObject, obj, str } from '../../model/json.js';
import { prettyToolName, toolDetail } from '../../model/tools.js';
import { blocksOf, flattenContent } from '../conversation-util.js';
import { isHarnessText, tagged, tidyHarnessText } from './harness-text.js';

/** The patch an edit applied, recorded on the record carrying its result. */
function claudeDelta(record: JsonObject): Delta | null {
  const hunks = arr(obj(record.toolUseResult)?.structuredPatch);
  if (!hunks) return null;
  const delta: Delta = { added: 0, removed: 0, lines: [] };
  for (const h of hunks) {
    for (const line of arr(obj(h)?.lines) ?? []) {
      if (typeof line !== 'string') continue;
      if (line.startsWith('+')) delta.added++;
      else if (line.startsWith('-')) delta.removed++;
      delta.lines.push(line);
    }
  }
  return delta.added > 0 || delta.removed > 0 ? delta : null;
}

/**
 * Who wrote a user row, where Claude Code says so (`rowSource`, written from 2.1.332): `local` is the
 * person at the terminal; `harness` (Claude Code itself) and `hook` (the user's hooks) are not.
 * Null where the row does not say, or says `recorded` (a row carried over from another session: that
 * says where the row came from, not who wrote it), and the text rules decide.
 */
function rowSpeaker(record: JsonObject): 'person' | 'harness' | null {
  switch (str(record.rowSource)) {
    case 'local':
      return 'person';
    case 'harness':
    case 'hook':
      return 'harness';
    default:
      // known limit: a value this reader has not met falls back to the text rules, as an older row does.
      return null;
  }
}

/**
 * A slash command the person typed (`<command-name>/loop</command-name><command-args>5m</…>`), as
 * they typed it, and what it printed when the same row carries that (`<local-command-stdout>`).
 */
function typedCommand(text: string): { said: string; printed: string } | null {
  const name = tagged(text, 'command-name');
  if (name === null) return null;
  const args = (tagged(text, 'command-args') ?? '').trim();
  return {
    said: `${name.trim()} ${args}`.trim(),
    printed: (tagged(text, 'local-command-stdout') ?? '').trim(),
  };
}

function userRecord(sink: TurnSink, record: JsonObject, ts: string, sidechain: boolean): void {
  const content = obj(record.message)?.content;
  let delta = claudeDelta(record);
  let text = '';
  let hadResult = false;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (typeof block === 'string') {
        text = text.length === 0 ? block : `${text}\n\n${block}`;
        continue;
      }
      const b = obj(block);
      if (b === null) continue;
      if (b.type === 'tool_result') {
        hadResult = true;
        const id = str(b.tool_use_id);
        if (id === null) continue;
        sink.resolve(id, flattenContent(b.content), b.is_error === true, delta);
        delta = null;
      } else {
        const t = str(b.text);
        if (t !== null && t.length > 0) text = text.length === 0 ? t : `${text}\n\n${t}`;
      }
    }
  }
  if (text.trim().length === 0) return;
  // A tool result and a typed message can share a record (someone typed while a tool ran): the
  // result is attached already, what is left is a person talking, or the harness.
  if (bool(record.isCompactSummary)) {
    sink.push('system', 'compaction', ts, text);
    return;
  }
  // A command the model ran (a skill through a tool) sits beside that tool's result; only one on a
  // row of its own was typed.
  const typed = hadResult || bool(record.isMeta) ? null : typedCommand(text);
  const speaker = rowSpeaker(record);
  // In a subagent's own transcript every user row is its parent agent or the harness speaking: the
  // prompt it was given is not the person's. `isMeta` marks text Claude Code added and hides from the
  // person (a command's expanded prompt, a caveat), wherever it sits.
  const byHarness =
    sidechain ||
    (speaker !== null
      ? speaker === 'harness'
      : bool(record.isMeta) || (typed === null && isHarnessText(text)));
  if (byHarness) {
    const tidy = tidyHarnessText(text);
    if (tidy.trim().length > 0) sink.push('system', 'message', ts, tidy);
    return;
  }
  if (typed !== null) {
    sink.push('user', 'message', ts, typed.said);
    if (typed.printed.length > 0) sink.push('system', 'message', ts, typed.printed);
    return;
  }
  sink.push('user', 'message', ts, text);
}

function assistantRecord(sink: TurnSink, record: JsonObject, ts: string): void {
  const blocks = arr(obj(record.message)?.content);
  if (!blocks) return;
  const request = str(record.requestId);
  let text = '';
  let thinking = '';
  const calls: { id: string | null; name: string; input: unknown }[] = [];
  for (const b of blocksOf(blocks)) {
    if (b.type === 'text') {
      const t = str(b.text);
      if (t) text = text.length === 0 ? t : `${text}\n\n${t}`;
    } else if (b.type === 'thinking') {
      const t = str(b.thinking);
      if (t) thinking = thinking.length === 0 ? t : `${thinking}\n\n${t}`;
    } else if (b.type === 'tool_use') {
      calls.push({ id: str(b.id), name: str(b.name) ?? 'tool', input: b.input ?? null });
    }
  }
  // Thinking is its own turn, before the reply it belongs to. Pushing it closes the run but not the
  // request, so the reply's later records still find their turn.
  if (thinking.trim().length > 0) sink.push('assistant', 'reasoning', ts, thinking);
  if (text.trim().length === 0 && calls.length === 0) return;
  const seq = sink.openAssistant(ts, request);
  sink.appendText(seq, text);
  for (const c of calls) {
    const { detail, full } = toolDetail(c.name, c.input);
    sink.addTool(seq, c.id, newTool(prettyToolName(c.name), detail, full));
  }
}

/**
 * Feed one transcript record to `sink`. A subagent's records share the parent's file in older
 * versions and are another conversation: left out, unless this is the subagent's own transcript.
 */
export function claudeRecord(sink: TurnSink, record: JsonObject, includeSidechain = false): void {
  if (!includeSidechain && bool(record.isSidechain)) return;
  const ts = str(record.timestamp) ?? '';
  if (record.type === 'user') userRecord(sink, record, ts, includeSidechain && bool(record.isSidechain));
  else if (record.type === 'assistant') assistantRecord(sink, record, ts);
}

export type { Conversation };
