import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../providers/types.js';
import { discoveryDigest } from './kept.js';
import type { Discovery } from './scan.js';

const file = (name: string, size: number): SourceFile => ({
  provider: 'claude',
  path: `/h/.claude/projects/-w/${name}.jsonl`,
  root: '/h/.claude/projects',
  sessionHint: name,
  role: 'main',
  size,
  mtimeMs: 1_764_417_600_000.25,
  ino: 4242,
});

const listing = (files: SourceFile[]): Discovery => ({ roots: [], files });
const FILES = [file('a', 100), file('b', 200), file('c', 300)];

describe('the digest of what discovery saw', () => {
  it('is the same for the same files', () => {
    expect(discoveryDigest(listing(FILES))).toBe(discoveryDigest(listing(FILES.map((f) => ({ ...f })))));
  });

  it('changes with any one file added, removed, grown, touched, replaced, renamed or taken for another role', () => {
    const b = FILES[1]!;
    const changed: Record<string, SourceFile[]> = {
      added: [...FILES, file('d', 1)],
      removed: [FILES[0]!, FILES[2]!],
      grown: [FILES[0]!, { ...b, size: 201 }, FILES[2]!],
      touched: [FILES[0]!, { ...b, mtimeMs: b.mtimeMs + 0.001 }, FILES[2]!],
      replaced: [FILES[0]!, { ...b, ino: 4243 }, FILES[2]!],
      renamed: [FILES[0]!, { ...b, path: `${b.path}x` }, FILES[2]!],
      'a subagent now': [FILES[0]!, { ...b, role: 'subagent' }, FILES[2]!],
      'another session': [FILES[0]!, { ...b, sessionHint: null }, FILES[2]!],
      'another harness': [FILES[0]!, { ...b, provider: 'codex' }, FILES[2]!],
      reordered: [FILES[1]!, FILES[0]!, FILES[2]!],
    };
    const before = discoveryDigest(listing(FILES));
    const digests = Object.entries(changed).map(([what, files]) => [what, discoveryDigest(listing(files))]);
    for (const [what, d] of digests) expect({ what, changed: d !== before }).toEqual({ what, changed: true });
    expect(new Set(digests.map(([, d]) => d)).size).toBe(digests.length);
  });
});
