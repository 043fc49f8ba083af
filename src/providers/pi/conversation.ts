/**
 * Pi's conversation: session entries into turns.
 *
 * A Pi session is a tree written as lines: every entry names its parent, and branching (`/tree`)
 * starts a new child of an earlier entry in the same file. What Pi shows, and sends the model, is
 * the path from the newest entry back to the root; the caller works that path out first (`PiTree`)
 * and offers only its entries here, so an abandoned branch is not shown as if it had happened. Its
 * `branch_summary`, written where the new branch starts, says what it was.
 *
 * A `message` entry holds one pi-ai message: `user` (the person), `assistant` (thinking, text and
 * `toolCall` blocks: one model response), `toolResult` (a call's answer by `toolCallId`, with
 * `isError`), `bashExecution` (a command the person ran with `!`), `custom` (an extension's message,
 * shown when it says `display`). A `compaction` entry is a seam carrying the summary the model goes
 * on from.
 */
import {
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  newTool,
  resultText,
  type TurnSink,
} from '../../model/conversation.js';
import { type JsonObject, num, obj, str, text } from '../../model/json.js';
import { editDelta, prettyToolName, toolDetail } from '../../model/tools.js';
import { blocksOf, flattenContent, head } from '../conversation-util.js';

/**
 * Entries whose parent is remembered to find the current branch. A long session has thousands;
 * past this the tree is not worked out and every entry is shown, in file order.
 */
export const MAX_TREE_ENTRIES = 1 << 20;

/** Steps taken walking from the newest entry to the root: a loop in bad data cannot hold the walk. */
const MAX_WALK = MAX_TREE_ENTRIES;

/** Edits whose own arguments say what they changed. */
const EDIT_TOOLS = new Set(['edit', 'write']);

/** The words of a user or tool message's content (a string, or text and image blocks). */
export function contentText(content: unknown, max: number): string {
  if (typeof content === 'string') return head(content, max);
  let out = '';
  for (const b of blocksOf(content)) {
    const t = str(b.text);
    if (t !== null) out = out.length === 0 ? head(t, max) : `${out}\n\n${head(t, max)}`;
    else if (b.type === 'image') out = out.length === 0 ? '[image]' : `${out}\n\n[image]`;
    if (out.length > 2 * max) break;
  }
  return out;
}

/** Pi names an edit's text `oldText` and `newText`. */
export function piDelta(name: string, args: unknown): ReturnType<typeof editDelta> {
  if (!EDIT_TOOLS.has(name)) return null;
  const a = obj(args);
  if (a === null) return null;
  return editDelta({
    old_string: a.oldText ?? a.old_string ?? null,
    new_string: a.newText ?? a.content ?? null,
  });
}

/**
 * The entries on the current branch, worked out from every entry's parent. Entries are offered in
 * file order; `path()` walks back from the newest. Null when the session is past the bound (or has no
 * tree at all, as version 1 files): then every entry is shown.
 */
export class PiTree {
  private readonly parents = new Map<string, string | null>();
  private newest: string | null = null;
  private overflow = false;

  entry(id: string, parent: string | null): void {
    if (this.overflow) return;
    if (this.parents.size >= MAX_TREE_ENTRIES) {
      this.overflow = true;
      this.parents.clear();
      return;
    }
    this.parents.set(id, parent);
    this.newest = id;
  }

  path(): Set<string> | null {
    if (this.overflow || this.newest === null) return null;
    const on = new Set<string>();
    let at: string | null = this.newest;
    for (let step = 0; at !== null && step < MAX_WALK && !on.has(at); step++) {
      on.add(at);
      at = this.parents.get(at) ?? null;
    }
    return on;
  }
}

/** The id and parent of an entry as Pi writes it (`{"type":…,"id":…,"parentId":…`), without parsing it. */
const ENTRY_HEAD = /^\{"type":"[^"\\]*","id":"([^"\\]{1,64})","parentId":(?:null|"([^"\\]{1,64})")/;

/** An entry's id and parent from the head of its line, or null when the head is not Pi's usual one. */
export function entryHead(line: string): { id: string; parent: string | null } | null {
  const m = ENTRY_HEAD.exec(line);
  return m ? { id: m[1]!, parent: m[2] ?? null } : null;
}

export class PiConversation {
  constructor(private readonly sink: TurnSink) {}

  entry(e: JsonObject): void {
    const ts = str(e.timestamp) ?? '';
    switch (str(e.type)) {
      case 'message':
        this.message(obj(e.message) ?? {}, text(e.id), ts);
        return;
      case 'compaction': {
        const summary = text(e.summary);
        this.sink.push(
          'system',
          'compaction',
          ts,
          summary === null ? 'compacted' : head(summary, MAX_TEXT_CHARS),
        );
        return;
      }
      case 'branch_summary': {
        const summary = text(e.summary);
        if (summary !== null)
          this.sink.push(
            'system',
            'message',
            ts,
            `from the branch left behind: ${head(summary, MAX_TEXT_CHARS)}`,
          );
        return;
      }
      case 'custom_message':
        if (e.display === true) this.custom(e.content, ts);
        return;
      default:
        return;
    }
  }

  private message(m: JsonObject, entry: string | null, ts: string): void {
    switch (str(m.role)) {
      case 'user': {
        const said = contentText(m.content, MAX_TEXT_CHARS);
        if (said.trim().length > 0) this.sink.push('user', 'message', ts, said);
        return;
      }
      case 'assistant':
        this.response(m, entry, ts);
        return;
      case 'toolResult': {
        const id = text(m.toolCallId);
        if (id === null) return;
        this.sink.resolve(id, resultText(contentText(m.content, MAX_RESULT_CHARS)), m.isError === true, null);
        return;
      }
      case 'bashExecution':
        this.bash(m, ts);
        return;
      case 'custom':
        if (m.display === true) this.custom(m.content, ts);
        return;
      case 'compactionSummary':
      case 'branchSummary': {
        const summary = text(m.summary);
        if (summary !== null)
          this.sink.push(
            'system',
            m.role === 'compactionSummary' ? 'compaction' : 'message',
            ts,
            head(summary, MAX_TEXT_CHARS),
          );
        return;
      }
      default:
        return;
    }
  }

  /** One model response: its blocks in the order the model produced them. */
  private response(m: JsonObject, entry: string | null, ts: string): void {
    // A response is keyed by its entry, so its thinking (a turn of its own) does not split it.
    const key = entry ?? `${ts}#${num(m.timestamp) ?? ''}`;
    for (const b of blocksOf(m.content)) {
      if (b.type === 'thinking') {
        const t = str(b.thinking);
        if (t !== null && t.trim().length > 0)
          this.sink.push('assistant', 'reasoning', ts, head(t, MAX_TEXT_CHARS));
      } else if (b.type === 'text') {
        const t = str(b.text);
        if (t !== null && t.trim().length > 0)
          this.sink.appendText(this.sink.openAssistant(ts, key), head(t, MAX_TEXT_CHARS));
      } else if (b.type === 'toolCall') {
        const name = text(b.name) ?? 'tool';
        const { detail, full } = toolDetail(name, b.arguments ?? null);
        const tool = newTool(prettyToolName(name), detail, full);
        const delta = piDelta(name, b.arguments);
        if (delta) {
          tool.added = delta.added;
          tool.removed = delta.removed;
          tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
        }
        this.sink.addTool(this.sink.openAssistant(ts, key), text(b.id), tool);
      }
    }
    // How a response ended badly is the harness's to say, after whatever the model managed.
    const stop = str(m.stopReason);
    if (stop === 'error') {
      const why = text(m.errorMessage);
      this.sink.push('system', 'message', ts, why === null ? 'error' : `error: ${head(why, MAX_TEXT_CHARS)}`);
    } else if (stop === 'aborted') this.sink.push('system', 'message', ts, 'interrupted');
  }

  /** A command the person ran with `!`: their words, and what it printed. */
  private bash(m: JsonObject, ts: string): void {
    const command = text(m.command);
    if (command === null) return;
    const seq = this.sink.push('user', 'message', ts, `!${head(command, MAX_TEXT_CHARS)}`);
    const tool = newTool('bash', toolDetail('bash', { command }).detail, null);
    tool.result = flattenContent(head(str(m.output) ?? '', MAX_RESULT_CHARS));
    // Nothing but the exit code says how it went: Pi runs it, and records no verdict of its own.
    const exit = num(m.exitCode);
    tool.failed = m.cancelled === true || (exit !== null && exit !== 0);
    this.sink.addTool(seq, null, tool);
  }

  private custom(content: unknown, ts: string): void {
    const said = contentText(content, MAX_TEXT_CHARS);
    if (said.trim().length > 0) this.sink.push('system', 'message', ts, said);
  }
}
