/**
 * The chat data Windsurf keeps in a workspace's `state.vscdb` (the editor's `ItemTable(key, value)`),
 * as far as it is known: under one of a few keys, a JSON value `{tabs: [{tabId, chatTitle, bubbles:
 * [{toolCalls | tool_calls: [{name | toolName}]}]}]}`.
 *
 * This shape comes from documentation, not from a real install (no Windsurf data was available to
 * check it against): anything that does not match is ignored, never guessed at.
 */
import {
  arr,
  type BadLineReason,
  type JsonObject,
  obj,
  parseObject,
  readJson,
  text,
} from '../../model/json.js';

/** The keys chat data has been kept under, newest first. */
export const CHAT_KEYS = [
  'cascade.chatdata',
  'workbench.panel.aichat.view.aichat.chatdata',
  'aiChat.chatdata',
  'chat.data',
] as const;

/** Tool calls counted per tab; a tab with more is counted up to here. */
export const MAX_CALLS_PER_TAB = 100_000;

export interface WindsurfTab {
  id: string;
  title: string | null;
  calls: string[];
}

function callsOf(bubble: JsonObject, into: string[]): void {
  for (const c of arr(bubble.toolCalls) ?? arr(bubble.tool_calls) ?? []) {
    if (into.length >= MAX_CALLS_PER_TAB) return;
    const call = obj(c);
    const name = call ? (text(call.name) ?? text(call.toolName)) : null;
    if (name) into.push(name);
  }
}

/**
 * The tabs of a chat data value; `bad` says why there are none when the value is not a JSON object
 * at all (damaged, or nested past the depth bound). A JSON object of another shape is not bad: it is
 * a shape this reader does not know, and holds no tabs.
 */
export function tabsFrom(value: string): { tabs: WindsurfTab[]; bad: BadLineReason | null } {
  const r = readJson(value);
  const data = r.kind === 'read' ? obj(r.value) : null;
  if (data === null) return { tabs: [], bad: r.kind === 'bad' ? r.reason : 'not-json-object' };
  const out: WindsurfTab[] = [];
  for (const t of arr(data?.tabs) ?? []) {
    const tab = obj(t);
    const id = tab ? text(tab.tabId) : null;
    if (!tab || id === null) continue;
    const calls: string[] = [];
    for (const b of arr(tab.bubbles) ?? []) {
      const bubble = obj(b);
      if (bubble) callsOf(bubble, calls);
    }
    out.push({ id, title: text(tab.chatTitle), calls });
  }
  return { tabs: out, bad: null };
}

/** The folder a workspace opened (`workspace.json`'s `folder`, a `file://` URI). */
export function workspaceFolder(json: string): string | null {
  const folder = text(parseObject(json)?.folder);
  if (folder === null || !folder.startsWith('file://')) return null;
  try {
    return decodeURIComponent(new URL(folder).pathname);
  } catch {
    return null;
  }
}
