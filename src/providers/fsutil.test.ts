/**
 * Which symbolic links discovery follows: a linked root or directory, yes; a linked file only when
 * it stays under its root. And a problem names a file, a line and a reason, never what a line says.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome, tempDir } from '../test-support/corpus.js';
import { readCold } from '../test-support/snapshot.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');

/** A password file's first line, as `/etc/shadow` holds it. */
const SECRET = 'root:$6$Zx9saltsalt$verysecrethashverysecrethash:19700:0:99999:7:::';

let home: FakeHome;
let outside: { dir: string; cleanup: () => void };
beforeEach(() => {
  home = new FakeHome();
  outside = tempDir('cctop-outside-');
});
afterEach(() => {
  home.cleanup();
  outside.cleanup();
});

const snap = async () => {
  const s = await readCold(home.env, { providers: ['claude'], nowMs: NOW });
  return { doc: s.document, json: s.json().toString('latin1') };
};

describe('symbolic links in a harness’s tree', () => {
  it('a transcript linking to a file outside its root is not read; the problem says where it leads, not what is there', async () => {
    const shadow = join(outside.dir, 'shadow');
    writeFileSync(shadow, `${SECRET}\ndaemon:*:19700:0:99999:7:::\n`);
    home.write(home.claudeFile('-w', 'fine.jsonl'), claudeResponse('a', 2, '2026-11-29T10:00:00Z'));
    symlinkSync(shadow, home.claudeFile('-w', 'evil.jsonl'));
    const { doc, json } = await snap();
    expect(doc.sessions.map((s) => s.id)).toEqual(['fine']);
    expect(doc.problems).toEqual([
      {
        kind: 'unreadable',
        path: home.claudeFile('-w', 'evil.jsonl'),
        count: null,
        detail: `a symbolic link to ${shadow}, outside ${join(home.dir, '.claude')}: not followed (cctop reads a linked file only inside the harness's own directory)`,
      },
    ]);
    expect(json).not.toContain('verysecrethash');
  });

  it('a root that is itself a link (~/.claude kept elsewhere) is read as usual', async () => {
    const real = join(outside.dir, 'claude-data');
    home.write(home.claudeFile('-w', 's1.jsonl'), claudeResponse('a', 2, '2026-11-29T10:00:00Z'));
    renameSync(join(home.dir, '.claude'), real);
    symlinkSync(real, join(home.dir, '.claude'));
    const { doc } = await snap();
    expect(doc.sessions.map((s) => s.id)).toEqual(['s1']);
    expect(doc.problems).toEqual([]);
  });

  it('a linked directory inside the tree is read, and a linked file that stays inside the root is followed', async () => {
    const project = join(outside.dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 's2.jsonl'), claudeResponse('b', 2, '2026-11-29T10:00:00Z'));
    mkdirSync(join(home.dir, '.claude', 'projects'), { recursive: true });
    symlinkSync(project, join(home.dir, '.claude', 'projects', '-linked'));
    const kept = home.write(
      join(home.dir, '.claude', 'archive', 'old.jsonl'),
      claudeResponse('c', 2, '2026-11-29T10:00:00Z'),
    );
    home.write(home.claudeFile('-w', 'placeholder.txt'), '');
    symlinkSync(kept, home.claudeFile('-w', 's3.jsonl'));
    const { doc } = await snap();
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(['s2', 's3']);
    expect(doc.problems).toEqual([]);
  });
});

describe('a problem names the file, the line and the reason', () => {
  it('a line that is not JSON is located and explained, never quoted', async () => {
    home.write(
      home.claudeFile('-w', 's.jsonl'),
      `${claudeResponse('a', 2, '2026-11-29T10:00:00Z')}\n${SECRET}\n${claudeResponse('b', 2, '2026-11-29T10:00:01Z')}`,
    );
    const { doc, json } = await snap();
    expect(doc.sessions[0]!.tokens.output).toBe(4);
    expect(doc.problems).toEqual([
      {
        kind: 'bad-lines',
        path: home.claudeFile('-w', 's.jsonl'),
        count: 1,
        detail: '1 of 4 lines could not be read; the first, line 3, is not a JSON object',
      },
    ]);
    expect(json).not.toContain('verysecrethash');
  });
});
