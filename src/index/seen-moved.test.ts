import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dirTime } from '../dir-time.js';
import { seenMoved } from './seen-moved.js';
import { GROWING_MS } from './warm-doc-layout.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cctop-seen-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A transcript in its own folder, and what a warm answer keeps of both when they are seen. */
function seen() {
  const dir = join(root, 'project');
  mkdirSync(dir);
  const file = join(dir, 'a.jsonl');
  writeFileSync(file, '{}\n');
  const st = statSync(file);
  return {
    dir,
    file,
    dirs: [[dir, dirTime(dir)]] as [string, number][],
    files: [[file, st.size, st.mtimeMs, st.ino]] as [string, number, number, number][],
    now: st.mtimeMs + 1000,
  };
}

describe('what a warm answer was made from', () => {
  it('has not moved while nothing was written', () => {
    const s = seen();
    expect(seenMoved(s.dirs, s.files, s.now)).toBeNull();
  });

  it('names a growing transcript an agent wrote to, even when a folder moved too', () => {
    const s = seen();
    appendFileSync(s.file, '{}\n');
    writeFileSync(join(s.dir, 'b.jsonl'), '{}\n');
    expect(seenMoved(s.dirs, s.files, s.now)).toBe(`${s.file} changed`);
  });

  it('names a folder a transcript was added to', () => {
    const s = seen();
    writeFileSync(join(s.dir, 'b.jsonl'), '{}\n');
    expect(seenMoved(s.dirs, s.files, s.now)).toBe(`${s.dir} changed`);
  });

  it('leaves a transcript quiet for longer than GROWING_MS to the sweep', () => {
    const s = seen();
    appendFileSync(s.file, '{}\n');
    expect(seenMoved(s.dirs, s.files, s.files[0]![2] + GROWING_MS + 1)).toBeNull();
  });
});
