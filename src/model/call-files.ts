/**
 * Which files a tool call touched, read from its input in the shapes harnesses share: the path a
 * file tool names, the files an `apply_patch` body changes, and what a write changed in each. The
 * collector (`calls.ts`) and each provider's call reader use these to fill `Call.files`.
 *
 * Not here: which tools read or write (each provider says, as a `FileAccess`), or the diff itself
 * (a conversation keeps that, `model/conversation.ts`).
 */

import type { Call } from './calls.js';
import { obj, str } from './json.js';

/** The keys an input names a file by, across harnesses. */
const PATH_KEYS = ['file_path', 'notebook_path', 'path', 'absolute_path', 'filePath', 'target_file'];

/** The file a call's input names, if it names one. */
export function pathOf(input: unknown): string | null {
  const o = obj(input);
  if (o === null) return null;
  for (const k of PATH_KEYS) {
    const p = str(o[k]);
    if (p !== null && p.length > 0) return p;
  }
  return null;
}

/**
 * Every file an `apply_patch` body changes (the patch format Codex's tool and OpenCode's take), with
 * the lines each gained and lost; a moved file (`*** Move to:`) is written under its new name too.
 */
export function patchedFiles(patch: string): Call['files'] {
  const files: Call['files'] = [];
  let current: Call['files'][number] | null = null;
  for (const line of patch.split('\n')) {
    const h = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line);
    const moved = current === null ? null : /^\*\*\* Move to: (.+)$/.exec(line);
    if (h) {
      current = { path: h[2]!.trim(), write: true, added: 0, removed: 0 };
      files.push(current);
    } else if (moved) files.push({ path: moved[1]!.trim(), write: true, added: 0, removed: 0 });
    else if (current && !line.startsWith('***')) {
      if (line.startsWith('+')) current.added++;
      else if (line.startsWith('-')) current.removed++;
    }
  }
  return files;
}

/** Put a write's line counts on a call and on the files it wrote. */
export function noteChange(call: Call, delta: { added: number; removed: number }): void {
  call.added = delta.added;
  call.removed = delta.removed;
  for (const f of call.files) {
    if (f.write) {
      f.added = delta.added;
      f.removed = delta.removed;
    }
  }
}
