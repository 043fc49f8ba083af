import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendJournal,
  JOURNAL_FILE,
  journalProblem,
  loadJournal,
  loadJournalIn,
  MAX_JOURNAL_BYTES,
  newestByAgent,
  newestBySession,
  readJournal,
} from './journal.js';
import type { HookAgent, HookEvent } from './types.js';

let dir: string;
let env: { CCTOP_RUNTIME_DIR: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-journal-'));
  env = { CCTOP_RUNTIME_DIR: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const event = (at: number, session: string | null = `s${at}`, agent: HookAgent = 'claude'): HookEvent => ({
  v: 1,
  at,
  agent,
  event: 'PreToolUse',
  session,
  cwd: '/home/dev/src/project-with-a-realistic-name',
  notification: null,
  tool: 'Bash',
  permissionMode: 'default',
  transcript: `/home/dev/.claude/projects/-home-dev-src-project/${session}.jsonl`,
  input: null,
  ppid: 4242,
});

describe('the hook journal', () => {
  it('gives back what was appended, oldest first', () => {
    for (let i = 1; i <= 3; i++) appendJournal(dir, event(i));
    expect(readJournal(env).map((e) => e.at)).toEqual([1, 2, 3]);
    expect(journalProblem(env)).toBeNull();
  });

  it('is empty before the first hook ran', () => {
    expect(loadJournal(env)).toEqual({ kind: 'read', events: [], mark: null, bad: 0 });
  });

  it('reading it makes no runtime directory', () => {
    const missing = join(dir, 'not-yet');
    expect(loadJournal({ CCTOP_RUNTIME_DIR: missing })).toEqual({
      kind: 'read',
      events: [],
      mark: null,
      bad: 0,
    });
    expect(existsSync(missing)).toBe(false);
  });

  it('a reader that follows it gets only what was appended since, and a line still being written later', () => {
    appendJournal(dir, event(1));
    const first = loadJournalIn(dir);
    if (first.kind !== 'read') throw new Error(first.why);
    appendJournal(dir, event(2));
    const half = JSON.stringify(event(3));
    appendFileSync(join(dir, JOURNAL_FILE), half.slice(0, 40));
    const second = loadJournalIn(dir, first.mark);
    if (second.kind !== 'read') throw new Error(second.why);
    expect(second.events.map((e) => e.at)).toEqual([2]);
    appendFileSync(join(dir, JOURNAL_FILE), `${half.slice(40)}\n`);
    const third = loadJournalIn(dir, second.mark);
    expect(third.kind === 'read' && third.events.map((e) => e.at)).toEqual([3]);
  });

  it('a reader that follows it reads it whole again once it was compacted', () => {
    appendJournal(dir, event(1));
    const first = loadJournalIn(dir);
    if (first.kind !== 'read') throw new Error(first.why);
    for (let i = 2; i <= 2_000; i++) appendJournal(dir, event(i));
    const again = loadJournalIn(dir, first.mark);
    if (again.kind !== 'read') throw new Error(again.why);
    expect(again.events.at(-1)?.at).toBe(2_000);
    expect(again.events[0]!.at).toBeGreaterThan(1);
  });

  it('stays under its bound however many hooks append, and keeps the newest', () => {
    const n = 5_000;
    for (let i = 1; i <= n; i++) appendJournal(dir, event(i));
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeLessThanOrEqual(MAX_JOURNAL_BYTES);
    const read = readJournal(env);
    expect(read.at(-1)?.at).toBe(n);
    // Every line survived whole and in order, newest half kept.
    expect(read.map((e) => e.at)).toEqual(
      Array.from({ length: read.length }, (_, i) => n - read.length + 1 + i),
    );
    expect(read.length).toBeGreaterThan(100);
    expect(existsSync(join(dir, 'hooks.jsonl.lock'))).toBe(false);
    expect(existsSync(join(dir, 'hooks.jsonl.tmp'))).toBe(false);
  });

  it('a lock held by another compaction is left alone; one left by a dead holder is cleared', () => {
    const lock = join(dir, 'hooks.jsonl.lock');
    writeFileSync(lock, '');
    for (let i = 1; i <= 2_000; i++) appendJournal(dir, event(i));
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeGreaterThan(MAX_JOURNAL_BYTES);
    expect(readJournal(env).at(-1)?.at).toBe(2_000);

    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    appendJournal(dir, event(2_001)); // clears the stale lock
    appendJournal(dir, event(2_002)); // compacts
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeLessThanOrEqual(MAX_JOURNAL_BYTES);
    expect(readJournal(env).at(-1)?.at).toBe(2_002);
  });

  it('skips torn, foreign and other-version lines, and reads the rest', () => {
    appendJournal(dir, event(1));
    appendFileSync(join(dir, JOURNAL_FILE), '{"v":1,"at":2,"agent":"cla\nnot json\n[]\n');
    appendFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify({ ...event(3), v: 2 })}\n`);
    appendFileSync(join(dir, JOURNAL_FILE), `${JSON.stringify({ ...event(4), agent: 'vim' })}\n`);
    appendJournal(dir, event(5));
    expect(readJournal(env).map((e) => e.at)).toEqual([1, 5]);
    // Counted, for cctop doctor: the torn line, the two that are not events, the two of others.
    expect(journalProblem(env)).toBe('5 lines of the journal are not events; skipped');
  });

  it('reads only the newest part of a journal grown far past its bound', () => {
    const line = `${JSON.stringify(event(1))}\n`;
    writeFileSync(join(dir, JOURNAL_FILE), line.repeat(Math.ceil((8 * MAX_JOURNAL_BYTES) / line.length)));
    const read = readJournal(env);
    expect(read.length).toBeLessThanOrEqual(Math.ceil((2 * MAX_JOURNAL_BYTES) / line.length));
    expect(read.length).toBeGreaterThan(0);
  });

  it('never writes through a symbolic link in its place, and says why it cannot be read', () => {
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, join(dir, JOURNAL_FILE));
    appendJournal(dir, event(1));
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(readJournal(env)).toEqual([]);
    expect(journalProblem(env)).toBe(`${join(dir, JOURNAL_FILE)}: it is a symbolic link`);
  });

  it('a runtime directory that is not ours reads as no events, with the reason', () => {
    const file = join(dir, 'plain');
    writeFileSync(file, '');
    const other = { CCTOP_RUNTIME_DIR: file };
    expect(readJournal(other)).toEqual([]);
    expect(journalProblem(other)).toBe(`${file}: it is not a directory`);
  });

  it.runIf(process.getuid?.() === 0)(
    `a runtime directory another user owns is not read${process.getuid?.() === 0 ? '' : ' (skipped: not running as root, and only root can make a file another user owns; run the tests as root, as CI does)'}`,
    () => {
      const theirs = join(dir, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      writeFileSync(join(theirs, JOURNAL_FILE), `${JSON.stringify(event(1))}\n`);
      chownSync(theirs, 65534, 65534);
      expect(readJournal({ CCTOP_RUNTIME_DIR: theirs })).toEqual([]);
      expect(journalProblem({ CCTOP_RUNTIME_DIR: theirs })).toContain('belongs to user 65534');
    },
  );
});

describe('the newest events', () => {
  const events = [
    event(1, 'a'),
    event(2, 'b', 'codex'),
    event(3, 'a'),
    event(4, null),
    event(5, 'b', 'gemini'),
  ];

  it('of each agent', () => {
    const newest = newestByAgent(events);
    expect([newest.claude?.at, newest.codex?.at, newest.gemini?.at, newest.cursor]).toEqual([
      4,
      2,
      5,
      undefined,
    ]);
  });

  it('of each session, the same id under two agents being two sessions', () => {
    const newest = newestBySession(events);
    expect([...newest.entries()].map(([k, e]) => [k, e.at])).toEqual([
      ['claude:a', 3],
      ['codex:b', 2],
      ['gemini:b', 5],
    ]);
  });
});
