/**
 * OpenCode up to 1.1: a tree of JSON files under `storage/`: `session/<project>/<session>.json`,
 * `message/<session>/<message>.json`, `part/<message>/<part>.json`. OpenCode 1.2 migrates it into
 * its database and leaves it in place; a session found in both is read from the database only.
 *
 * A session's `SourceFile` is its session file, with a fingerprint that also moves when its
 * messages do: the newest of the session file, its message folder, its newest message and that
 * message's parts folder (OpenCode's ids sort by creation). Finding the session files and that
 * fingerprint are in `place.ts`, which discovery loads without this module; reading them is here.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { JsonObject } from '../../model/json.js';
import { type ChatMessage, type ChatPart, chatMessageFrom, chatPartFrom } from './conversation.js';
import type { OpenCodeRows } from './parser.js';
import { names, readJsonFile, readStorageFile, storageOf } from './place.js';
import {
  messageFrom,
  type OpenCodeMessage,
  type OpenCodePart,
  partFrom,
  partWords,
  sessionFrom,
} from './record.js';

export { fingerprint, MAX_STORAGE_FILE_BYTES, readJsonFile } from './place.js';

/** Parts read per message; a message with more is counted up to here. */
export const MAX_PARTS_PER_MESSAGE = 4096;

/** A child session (a task's) nests at most this deep under the session asking for it. */
const MAX_NESTING = 16;

/** The session id a legacy session file names (its `id`, else its file name). */
export function sessionIdOf(sessionFile: string): string {
  const o = readJsonFile(sessionFile);
  const id = o ? sessionFrom(o)?.id : undefined;
  return id ?? basename(sessionFile, '.json');
}

export function readStoredSession(sessionFile: string): OpenCodeRows | null {
  const o = readJsonFile(sessionFile);
  const session = o ? sessionFrom(o) : null;
  if (!session) return null;
  const storage = storageOf(sessionFile);
  const messageDir = join(storage, 'message', session.id);
  const messages: OpenCodeMessage[] = [];
  const parts: OpenCodePart[] = [];
  const words = new Map<string, string>();
  let unread: OpenCodeRows['unread'];
  let oversized = 0;
  /** A message or part file, counted when it is not a JSON object or is over the size bound. */
  const read = (path: string): JsonObject | null => {
    const r = readStorageFile(path);
    if (r === null) return null;
    if (r.kind === 'read') return r.value;
    if (r.kind === 'oversized') oversized++;
    else if (unread) unread.count++;
    else unread = { count: 1, first: { file: relative(storage, path), reason: r.reason } };
    return null;
  };
  for (const name of names(messageDir)) {
    const raw = read(join(messageDir, name));
    const m = raw ? messageFrom(raw) : null;
    if (!m) continue;
    messages.push(m);
    const partDir = join(storage, 'part', m.id);
    for (const p of names(partDir).slice(0, MAX_PARTS_PER_MESSAGE)) {
      const rawPart = read(join(partDir, p));
      if (!rawPart) continue;
      const w = m.role === 'user' && !words.has(m.id) ? partWords(rawPart) : null;
      if (w !== null) words.set(m.id, w);
      const part = partFrom(rawPart, m.id);
      if (part) parts.push(part);
    }
  }
  // Message file names are not always their ids; OpenCode's ids sort by creation, times sort better.
  messages.sort((a, b) => (a.ms ?? 0) - (b.ms ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const first = messages.find((m) => words.has(m.id));
  return {
    session,
    messages,
    parts,
    firstPrompt: first ? words.get(first.id)! : null,
    ...(unread ? { unread } : {}),
    ...(oversized > 0 ? { oversized } : {}),
  };
}

/**
 * A legacy session's conversation, message by message in the order they were written, each with
 * its parts in the order OpenCode made them (part ids, which are the file names, sort by creation).
 * One message's parts are read at a time; each file is bounded by `readJsonFile`.
 */
export function readStoredChat(
  sessionFile: string,
  each: (m: ChatMessage, parts: Iterable<ChatPart>) => void,
): boolean {
  const o = readJsonFile(sessionFile);
  const session = o ? sessionFrom(o) : null;
  if (!session) return false;
  const storage = storageOf(sessionFile);
  const messageDir = join(storage, 'message', session.id);
  const messages: ChatMessage[] = [];
  for (const name of names(messageDir)) {
    const raw = readJsonFile(join(messageDir, name));
    const m = raw ? chatMessageFrom(raw, basename(name, '.json')) : null;
    if (m) messages.push(m);
  }
  messages.sort((a, b) => (a.ms ?? 0) - (b.ms ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const m of messages) {
    const partDir = join(storage, 'part', m.id);
    const parts = (function* (): Iterable<ChatPart> {
      for (const p of names(partDir).slice(0, MAX_PARTS_PER_MESSAGE)) {
        const raw = readJsonFile(join(partDir, p));
        if (raw) yield chatPartFrom(raw);
      }
    })();
    each(m, parts);
  }
  return true;
}

/**
 * The session file of `child` in the same `storage/` tree as `parentFile`, when `child` is a
 * session under it (directly, or through nested tasks); else null.
 */
export function storedChild(parentFile: string, child: string): string | null {
  const parent = readJsonFile(parentFile);
  const parentId = parent ? sessionFrom(parent)?.id : undefined;
  if (parentId === undefined) return null;
  const sessions = join(storageOf(parentFile), 'session');
  const fileOf = (id: string): string | null => {
    let projects: string[];
    try {
      projects = readdirSync(sessions);
    } catch {
      return null;
    }
    for (const project of projects) {
      const path = join(sessions, project, `${id}.json`);
      if (statSync(path, { throwIfNoEntry: false })?.isFile()) return path;
    }
    return null;
  };
  const found = fileOf(child);
  let at = found;
  for (let i = 0; at !== null && i < MAX_NESTING; i++) {
    const o = readJsonFile(at);
    const up = o ? sessionFrom(o)?.parentId : null;
    if (up === null || up === undefined) return null;
    if (up === parentId) return found;
    at = fileOf(up);
  }
  return null;
}
