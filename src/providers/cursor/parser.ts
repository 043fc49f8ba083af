/**
 * Cursor transcript lines → session facts. There is nothing to bill: no ledger records, so tokens
 * and cost stay absent (`─`, "no price"), never zero. Tool calls are counted; their outcomes are not
 * recorded by Cursor, so failures are absent too.
 *
 * With no timestamps in the lines, the file's own times stand in: last written is last active.
 */
import { type FileFacts, tallyTool } from '../../model/facts.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { CursorLine } from './record.js';

export class CursorParser {
  constructor(readonly facts: FileFacts) {
    facts.recordsOutcomes = false;
  }

  line(l: CursorLine): void {
    const f = this.facts;
    // The state is stamped with the file's mtime once the pass is over (`stampFileTimes`).
    if (l.turnEnded) {
      f.live = { state: 'idle', atMs: null, detail: 'turn_ended' };
      return;
    }
    switch (l.role) {
      case 'user':
        noteFirstPrompt(f, l.prompt);
        f.live = { state: 'working', atMs: null, detail: null };
        return;
      case 'assistant': {
        for (const name of l.calls) tallyTool(f, name);
        const ask = l.calls.find(isAskUserTool);
        if (ask) f.live = { state: 'waiting', atMs: null, detail: ask };
        else if (l.calls.length > 0) f.live = { state: 'working', atMs: null, detail: null };
        else if (l.hasText) f.live = { state: 'idle', atMs: null, detail: 'reply' };
        return;
      }
      default:
        return;
    }
  }
}

/** Last active is when the file was last written; started is when it was created, if known. */
export function stampFileTimes(f: FileFacts, mtimeMs: number, birthtimeMs: number): void {
  f.lastMs = Math.round(mtimeMs);
  if (f.firstMs === null && birthtimeMs > 0 && birthtimeMs <= mtimeMs) f.firstMs = Math.round(birthtimeMs);
  if (f.live !== null) f.live = { ...f.live, atMs: f.lastMs };
}
