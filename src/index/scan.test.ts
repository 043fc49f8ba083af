import { chmodSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProblemLog } from '../model/problems.js';
import { PROVIDER_LIST } from '../providers/index.js';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { documentOf } from '../test-support/parse.js';
import { discoverAll, parseAll } from './scan.js';

/** Bad input never stops the run or hides the other sessions; each is counted with its path. */
describe('bad input', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const good = (id: string) =>
    jsonl({
      type: 'assistant',
      sessionId: id,
      cwd: '/w',
      uuid: `u-${id}`,
      timestamp: '2026-11-29T10:00:00Z',
      requestId: `r-${id}`,
      message: {
        id: `m-${id}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        usage: { input_tokens: 1, output_tokens: 2 },
      },
    });

  const scan = () => {
    const problems = new ProblemLog();
    const d = discoverAll(home.env, PROVIDER_LIST, problems);
    const parsed = parseAll(d.files, PROVIDER_LIST, problems);
    return { problems, parsed, doc: documentOf(parsed) };
  };

  it('a line that is JSON in shape but not in value is one bad line, not a lost file', () => {
    // A raw control character in a string with escapes (Claude), a number with a leading zero inside
    // the usage object Codex decodes whole: the byte skim accepts both shapes, JSON.parse does not.
    const control = good('c').replace('"cwd":"/w"', '"cwd":"/w\\t\u0001"');
    home.write(home.claudeFile('-w', 'z.jsonl'), `${good('a')}${control}${good('b')}`);
    home.write(
      home.codexFile('rollout-2025-09-25T10-00-00-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl'),
      jsonl(
        { timestamp: '2025-09-25T10:00:00Z', type: 'session_meta', payload: { id: 'x', cwd: '/w' } },
        { timestamp: '2025-09-25T10:00:01Z', type: 'turn_context', payload: { model: 'gpt-5' } },
      ) +
        '{"timestamp":"2025-09-25T10:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":01,"output_tokens":2,"total_tokens":3},"last_token_usage":{"input_tokens":01,"output_tokens":2,"total_tokens":3}}}}\n',
    );
    const { doc, parsed, problems } = scan();
    expect(problems.list.filter((p) => p.kind === 'unreadable')).toEqual([]);
    const claude = parsed.find((p) => p.file.provider === 'claude')!.result.facts;
    expect(claude.badLines).toBe(1);
    expect(doc.sessions.find((s) => s.provider === 'claude')!.requests).toBe(2);
    const codex = parsed.find((p) => p.file.provider === 'codex')!.result.facts;
    expect(codex.badLines).toBe(1);
    expect(codex.lines).toBe(3);
  });

  it('garbage lines are counted and located; the good lines of the same file still count', () => {
    home.write(home.claudeFile('-w', 'g.jsonl'), `not json\n${good('g')}{"truncated":\n[1,2,3]\n`);
    const { doc, parsed } = scan();
    expect(doc.sessions[0]!.tokens.output).toBe(2);
    expect(parsed[0]!.result.facts.badLines).toBe(3);
    expect(doc.problems).toContainEqual(
      expect.objectContaining({
        kind: 'bad-lines',
        count: 3,
        detail: '3 of 4 lines could not be read; the first, line 1, is not a JSON object',
      }),
    );
  });

  it('a truncated last line is left unread and reported once the file has gone quiet', () => {
    home.write(
      home.claudeFile('-w', 't.jsonl'),
      `${good('t')}{"type":"assistant","mess`,
      Date.now() - 3_600_000,
    );
    const { doc } = scan();
    expect(doc.sessions[0]!.tokens.output).toBe(2);
    expect(doc.problems).toContainEqual(expect.objectContaining({ kind: 'partial-line' }));
  });

  it('binary junk and an empty file cost nothing but their own rows', () => {
    home.write(
      home.claudeFile('-w', 'junk.jsonl'),
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256)),
    );
    home.write(home.claudeFile('-w', 'empty.jsonl'), '');
    home.write(home.claudeFile('-w', 'ok.jsonl'), good('ok'));
    const { doc } = scan();
    const ok = doc.sessions.find((s) => s.id === 'ok');
    expect(ok?.tokens.output).toBe(2);
    expect(doc.sessions.find((s) => s.id === 'junk')?.tokens.output).toBeNull();
  });

  it('a 100 MB single line is skipped and counted, not buffered, and the session keeps its other lines', () => {
    const path = home.claudeFile('-w', 'huge.jsonl');
    const line = Buffer.alloc(100 * 1024 * 1024, 0x61);
    home.write(
      path,
      Buffer.concat([
        Buffer.from(good('huge')),
        line,
        Buffer.from('\n'),
        Buffer.from(good('huge2').replace(/huge2/g, 'huge-b')),
      ]),
    );
    const { doc } = scan();
    const s = doc.sessions.find((x) => x.id === 'huge')!;
    expect(s.tokens.output).toBe(4);
    expect(doc.problems).toContainEqual(expect.objectContaining({ kind: 'oversized-lines', count: 1 }));
  });

  it('a file deleted between listing and reading is reported as vanished', () => {
    const path = home.write(home.claudeFile('-w', 'gone.jsonl'), good('gone'));
    home.write(home.claudeFile('-w', 'here.jsonl'), good('here'));
    const problems = new ProblemLog();
    const d = discoverAll(home.env, PROVIDER_LIST, problems);
    unlinkSync(path);
    const parsed = parseAll(d.files, PROVIDER_LIST, problems);
    expect(parsed.map((p) => p.file.sessionHint)).toEqual(['here']);
    expect(problems.list).toContainEqual(expect.objectContaining({ kind: 'vanished', path }));
  });

  it('a symbolic link loop under a root does not trap the walk', () => {
    const dir = join(home.dir, '.codex', 'sessions', '2026');
    mkdirSync(dir, { recursive: true });
    symlinkSync(dir, join(dir, 'loop'));
    home.write(
      home.codexFile('rollout-x.jsonl', '2026/11/29'),
      jsonl({ timestamp: '2026-11-29T10:00:00Z', type: 'session_meta', payload: { id: 'x' } }),
    );
    const { doc } = scan();
    expect(doc.sessions.map((s) => s.provider)).toEqual(['codex']);
  });

  const root = process.getuid?.() === 0;
  it.skipIf(root)(
    `an unreadable project directory is reported with the fix, and the other projects still show${root ? ' (skipped: running as root, where permission bits do not apply; run the tests as another user)' : ''}`,
    () => {
      const locked = home.write(home.claudeFile('-locked', 'a.jsonl'), good('a'));
      home.write(home.claudeFile('-open', 'b.jsonl'), good('b'));
      const dir = join(locked, '..');
      chmodSync(dir, 0o000);
      try {
        const { doc } = scan();
        expect(doc.sessions.map((s) => s.id)).toEqual(['b']);
        expect(doc.problems).toContainEqual(expect.objectContaining({ kind: 'unreadable', path: dir }));
      } finally {
        chmodSync(dir, 0o755);
      }
    },
  );

  it('a session file that is a directory, or a dangling link, is skipped without a crash', () => {
    mkdirSync(home.claudeFile('-w', 'dir.jsonl'), { recursive: true });
    symlinkSync('/nonexistent/target', home.claudeFile('-w', 'dangling.jsonl'));
    writeFileSync(home.claudeFile('-w', 'ok.jsonl'), good('ok'));
    const { doc } = scan();
    expect(doc.sessions.map((s) => s.id)).toEqual(['ok']);
  });
});
