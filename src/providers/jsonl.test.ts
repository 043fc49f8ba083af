import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { CHUNK_BYTES, scanLines } from './jsonl.js';

describe('reading lines from a growing file', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  const collect = (path: string, from = 0, max?: number) => {
    const lines: string[] = [];
    const scan = scanLines(
      path,
      from,
      (buf, s, e, unterminated) => {
        const text = buf.toString('utf8', s, e);
        if (unterminated && !text.endsWith('}')) return false;
        lines.push(text);
        return true;
      },
      max,
    );
    return { lines, scan };
  };

  it('every line comes back whole, including lines that straddle read chunks', () => {
    const want: string[] = [];
    let size = 0;
    for (let i = 0; size < 3 * CHUNK_BYTES; i++) {
      const line = `{"i":${i},"pad":"${'x'.repeat((i * 7919) % 5000)}"}`;
      want.push(line);
      size += line.length + 1;
    }
    const path = join(t.dir, 'f.jsonl');
    writeFileSync(path, want.map((l) => `${l}\n`).join(''));
    const { lines, scan } = collect(path);
    expect(lines).toEqual(want);
    expect(scan.end).toBe(size);
  });

  it('a half-written last line is left for the next pass, which starts where this one stopped', () => {
    const path = join(t.dir, 'f.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":');
    const first = collect(path);
    expect(first.lines).toEqual(['{"a":1}']);
    expect(first.scan.end).toBe(8);
    expect(first.scan.pendingBytes).toBe(5);
    writeFileSync(path, '{"a":1}\n{"b":2}\n{"c":3}\n');
    const second = collect(path, first.scan.end);
    expect(second.lines).toEqual(['{"b":2}', '{"c":3}']);
  });

  it('a complete last line without its newline is read', () => {
    const path = join(t.dir, 'f.jsonl');
    writeFileSync(path, '{"a":1}\n{"b":2}');
    const { lines, scan } = collect(path);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(scan.end).toBe(15);
  });

  it('a line over the bound is skipped and counted, and the lines around it still arrive', () => {
    const path = join(t.dir, 'f.jsonl');
    writeFileSync(path, `{"a":1}\n{"big":"${'y'.repeat(5000)}"}\n{"c":3}\n`);
    const { lines, scan } = collect(path, 0, 1024);
    expect(lines).toEqual(['{"a":1}', '{"c":3}']);
    expect(scan.oversized).toBe(1);
  });

  it('an empty file yields nothing and no error', () => {
    const path = join(t.dir, 'f.jsonl');
    writeFileSync(path, '');
    expect(collect(path)).toMatchObject({ lines: [], scan: { end: 0, size: 0 } });
  });

  it('a file read after a longer one sees only its own bytes (the read buffer is reused)', () => {
    const long = join(t.dir, 'long.jsonl');
    const huge = `{"big":"${'z'.repeat(CHUNK_BYTES + 10)}"}`;
    writeFileSync(long, `{"a":1}\n${huge}\n{"b":"${'q'.repeat(300)}"}\n`);
    expect(collect(long).lines).toEqual(['{"a":1}', huge, `{"b":"${'q'.repeat(300)}"}`]);
    const short = join(t.dir, 'short.jsonl');
    writeFileSync(short, '{"c":3}\n{"d":4}');
    const { lines, scan } = collect(short);
    expect(lines).toEqual(['{"c":3}', '{"d":4}']);
    expect(scan.end).toBe(15);
    writeFileSync(short, '{"e":');
    expect(collect(short)).toMatchObject({ lines: [], scan: { end: 0, pendingBytes: 5 } });
  });
});
