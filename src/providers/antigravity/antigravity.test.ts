import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { closeAll } from '../sqlite.js';
import { fields, ProtoError } from './proto.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['antigravity'], nowMs: NOW });

// The protobuf encoding of the few fields a test needs (field numbers as `record.ts` lists them).
const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  return [...out, n];
};
const num = (no: number, n: number) => [...varint(no * 8), ...varint(n)];
const len = (no: number, b: number[]) => [...varint(no * 8 + 2), ...varint(b.length), ...b];
const str = (no: number, s: string) => len(no, [...Buffer.from(s)]);
const usage = (id: string, input: number, output: number) => [
  ...num(2, input),
  ...num(3, output),
  ...str(11, id),
];
const generation = (model: string, id: string, input: number, output: number, seconds = 1_778_000_000) =>
  Buffer.from(
    len(1, [...len(4, usage(id, input, output)), ...len(9, len(4, num(1, seconds))), ...str(19, model)]),
  );

function database(path: string, rows: Buffer[], steps: Buffer[] = []): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Sqlite(path);
  db.exec('CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  db.exec('CREATE TABLE steps (idx INTEGER PRIMARY KEY, metadata BLOB)');
  for (const [i, r] of rows.entries()) db.prepare('INSERT INTO gen_metadata VALUES (?, ?)').run(i + 1, r);
  for (const [i, r] of steps.entries()) db.prepare('INSERT INTO steps VALUES (?, ?)').run(i + 1, r);
  db.close();
}

describe('Antigravity conversation databases', () => {
  let home: FakeHome;
  const conversations = () => join(home.dir, '.gemini', 'antigravity-cli', 'conversations');
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  it('the recorded home: three conversations, their models by name and by numeric id, thinking inside output', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'antigravity', 'home'), home.dir, { recursive: true });
    const rows = (await snap(home)).document.sessions
      .map((s) => [s.id, s.models, s.requests, s.tokens.output, s.tokens.reasoning])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ['3b6f0c1e-a', ['gemini-2.5-pro'], 2, 888, 136],
      // The failed attempt counts; the retry list's copy of the call that succeeded does not.
      ['7d20aa94-b', ['gemini-2.5-flash'], 2, 312, 0],
      ['c81e7f35-c', ['gemini-2.5-flash', 'gemini-2.5-pro'], 2, 620, 30],
    ]);
  });

  it("a sub-conversation's copy of its parent's call counts once, and its own call counts", async () => {
    database(join(conversations(), 'parent.db'), [generation('Gemini 2.5 Pro', 'r1', 100, 10)]);
    database(join(conversations(), 'parent', 'sub.db'), [
      generation('Gemini 2.5 Pro', 'r1', 100, 10),
      generation('Gemini 2.5 Pro', 'r2', 50, 5),
    ]);
    const doc = (await snap(home)).document;
    const total = doc.sessions.reduce((n, s) => n + (s.tokens.input ?? 0), 0);
    expect([doc.sessions.length, total]).toEqual([2, 150]);
  });

  it('a row that is not a protobuf message is a bad line for doctor, and the rest is read', async () => {
    database(join(conversations(), 'c.db'), [
      Buffer.from([0x0a, 0x7f, 0x01]),
      generation('Gemini 2.5 Flash', 'r', 70, 7),
    ]);
    const doc = (await snap(home)).document;
    const s = doc.sessions[0]!;
    expect([s.tokens.input, s.tokens.output]).toEqual([70, 7]);
    expect(doc.problems.map((p) => (p.kind === 'bad-lines' ? p.detail : p.kind))).toEqual([
      '1 of 2 lines could not be read; the first, line 1, is not a protobuf message',
    ]);
  });

  it('a damaged database is a problem of its own file, and the other conversations read as before', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'antigravity', 'home'), home.dir, { recursive: true });
    const rows = (doc: Awaited<ReturnType<typeof snap>>['document']) =>
      doc.sessions.map((s) => JSON.stringify(s)).filter((s) => !s.includes('3b6f0c1e-a'));
    const clean = rows((await snap(home)).document);
    // The first line of the file written twice, in place (the connection the first scan opened is
    // kept): SQLite still opens it, its first page (and change counter) as it was, its later pages
    // shifted.
    const path = join(conversations(), '3b6f0c1e-a.db');
    const b = readFileSync(path);
    const line = b.subarray(0, b.indexOf(10) + 1);
    writeFileSync(path, Buffer.concat([line, b]));
    const doc = (await snap(home)).document;
    expect(rows(doc)).toEqual(clean);
    expect(
      doc.problems.map((p) => [p.path.endsWith('3b6f0c1e-a.db'), p.kind === 'bad-lines' ? p.detail : p.kind]),
    ).toEqual([[true, '1 of 1 line could not be read; the first, line 1, is not a sound SQLite database']]);
  });

  it('$ANTIGRAVITY_DATA_DIR names the roots, comma-separated, instead of the defaults', async () => {
    const other = join(home.dir, 'archive');
    database(join(other, 'conversations', 'old.db'), [generation('Gemini 2.5 Flash', 'x', 9, 1)]);
    database(join(conversations(), 'ignored.db'), [generation('Gemini 2.5 Flash', 'y', 9, 1)]);
    const doc = (await snap(home, { ANTIGRAVITY_DATA_DIR: `${other}, ${join(home.dir, 'none')}` })).document;
    expect(doc.sessions.map((s) => s.id)).toEqual(['old']);
  });

  it('a truncated blob is refused rather than read past its end', () => {
    expect(() => fields(Uint8Array.from([0x0a, 0x05, 0x01]))).toThrow(ProtoError);
    expect(() => fields(Uint8Array.from([0x08, 0xff, 0xff]))).toThrow(ProtoError);
    expect(() => fields(Uint8Array.from([0x00, 0x01]))).toThrow(ProtoError);
  });
});
