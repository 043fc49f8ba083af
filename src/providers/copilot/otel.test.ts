/**
 * Copilot CLI's OpenTelemetry exports beside its session-state. The recorded home is
 * `lab/fixtures/sources/copilot/home` (Copilot CLI 1.0.102 in the lab, its file export on); the
 * figures below are the lab server's answers as the exports wrote them. `test/sources-sources-a.test.ts`
 * checks the same home against ccusage.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import { FakeHome, REPO, tempDir } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { readOtelSession } from './otel.js';
import { conversationsIn } from './otel-names.js';

const RECORDED = join(REPO, 'lab', 'fixtures', 'sources', 'copilot', 'home');
const NOW = Date.parse('2026-12-07T12:00:00Z');

/** The sessions in the recorded home: two kept in session-state, two only in exports. */
const TEXT = '92e21b4e-08e8-42d0-96a1-ac99613b635d';
const RESUMED = '80f2d87e-dedb-409e-8780-2e15fa008098';
const EXPORTED = '9af4a68c-f7d8-4ac7-aa5b-16eec263e1ce';
const FAIL = 'e284c345-bfd9-4cab-a4ee-8bd88ab0188d';

const snap = async (home: FakeHome, env: Record<string, string> = {}): Promise<SessionDocument> =>
  (await readCold({ ...home.env, ...env }, { providers: ['copilot'], nowMs: NOW })).document;

const byId = (d: SessionDocument) => new Map(d.sessions.map((s) => [s.id, s]));

describe('Copilot CLI OpenTelemetry exports', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
    cpSync(RECORDED, home.dir, { recursive: true });
  });
  afterEach(() => home.cleanup());

  it('a session kept only in an export is read from it, with its tokens and models', async () => {
    const s = byId(await snap(home)).get(FAIL)!;
    // Two chat spans of gpt-5-mini: prompts 12,187 + 12,272 (cached 6,093 + 6,136), answers 27 + 29
    // (reasoning 10 + 11 inside them).
    expect(s.tokens).toEqual({ input: 12230, output: 56, cacheRead: 12229, cacheWrite: 0, reasoning: 21 });
    expect(s.models).toEqual(['gpt-5-mini']);
    expect(s.file).toBe(`${join(home.dir, '.copilot', 'otel', 'copilot-otel-4.jsonl')}#${FAIL}`);
  });

  it('the export the variable names is read; without the variable its session is not there', async () => {
    const exporter = { COPILOT_OTEL_FILE_EXPORTER_PATH: join(home.dir, 'exports', 'copilot.jsonl') };
    expect(byId(await snap(home, exporter)).get(EXPORTED)?.tokens.output).toBe(48);
    expect(byId(await snap(home)).has(EXPORTED)).toBe(false);
  });

  it('a request in both the session-state and an export counts once', async () => {
    const both = byId(await snap(home));
    rmSync(join(home.dir, '.copilot', 'otel'), { recursive: true });
    const stateOnly = byId(await snap(home));
    for (const id of [TEXT, RESUMED]) expect(both.get(id)!.tokens, id).toEqual(stateOnly.get(id)!.tokens);
    // The resumed session's second export (its second process) adds nothing session-state lacks.
    expect(both.get(RESUMED)!.tokens.output).toBe(57);
  });

  it('a pipe named like an export holds nothing up and costs no other session', async () => {
    execFileSync('mkfifo', [join(home.dir, '.copilot', 'otel', 'held.jsonl')]);
    execFileSync('mkfifo', [join(home.dir, 'exports', 'pipe.jsonl')]);
    const d = await snap(home, { COPILOT_OTEL_FILE_EXPORTER_PATH: join(home.dir, 'exports', 'pipe.jsonl') });
    expect(d.sessions.map((s) => s.id).sort()).toEqual([RESUMED, FAIL, TEXT].sort());
  });

  it('a session is read from its exports when its session-state is gone, the same as from it', async () => {
    const kept = byId(await snap(home)).get(RESUMED)!;
    rmSync(join(home.dir, '.copilot', 'session-state', RESUMED), { recursive: true });
    const exported = byId(await snap(home)).get(RESUMED)!;
    // Across two exports (the first process and the resumed one), no conversation, no title.
    expect(exported.tokens).toEqual(kept.tokens);
    expect(exported.title).toBeNull();
  });
});

describe('cctop doctor and the exports', () => {
  const CLI = join(REPO, 'dist', 'cli.js');
  it.skipIf(!existsSync(CLI))(
    `names the export the variable points at, with its session${existsSync(CLI) ? '' : ' (skipped: cctop is not built; npm run build)'}`,
    () => {
      // The recorded home is the repository's: cctop's own files go to a folder of the test's.
      const own = tempDir('cctop-otel-doctor-');
      const r = spawnSync(process.execPath, [CLI, 'doctor', '--no-cache'], {
        env: {
          PATH: process.env.PATH ?? '',
          CCTOP_CACHE_DIR: join(own.dir, 'cache'),
          CCTOP_RUNTIME_DIR: join(own.dir, 'run'),
          CCTOP_CONFIG: join(own.dir, 'config.toml'),
          HOME: RECORDED,
          TZ: 'UTC',
          NO_COLOR: '1',
          COPILOT_OTEL_FILE_EXPORTER_PATH: join(RECORDED, 'exports', 'copilot.jsonl'),
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      own.cleanup();
      expect(r.stdout).toContain(
        '  Copilot CLI: 4 sessions\n    ~/.copilot (default)  6 files, 3 sessions\n    ~/exports/copilot.jsonl ($COPILOT_OTEL_FILE_EXPORTER_PATH)  1 file, 1 session\n',
      );
    },
  );
});

describe('reading an export', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  /** A chat span as 1.0.102 writes it, trimmed to what is read. */
  const chat = (trace: string, span: string, response: string | null, input: number, output: number) =>
    JSON.stringify({
      type: 'span',
      traceId: trace,
      spanId: span,
      name: 'chat gpt-4.1',
      endTime: [1796631803, 88000000],
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.conversation.id': 'conv-1',
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': output,
        'gen_ai.response.model': 'gpt-4.1',
        ...(response === null ? {} : { 'gen_ai.response.id': response }),
      },
    });
  const agent = (trace: string, input: number, output: number) =>
    JSON.stringify({
      type: 'span',
      traceId: trace,
      spanId: `agent-${trace}`,
      name: 'invoke_agent',
      endTime: [1796631804, 0],
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': 'conv-1',
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': output,
      },
    });
  const inference = (trace: string, response: string, input: number, output: number) =>
    JSON.stringify({
      hrTime: [1796631803, 0],
      traceId: trace,
      attributes: {
        'event.name': 'gen_ai.client.inference.operation.details',
        'gen_ai.response.id': response,
        'gen_ai.response.model': 'gpt-4.1',
        'gen_ai.usage.input_tokens': input,
        'gen_ai.usage.output_tokens': output,
      },
    });

  const outputOf = (path: string) => {
    const { facts, ledger } = readOtelSession(path, 'conv-1');
    return { facts, records: ledger.data.length };
  };

  it("a trace's agent span counts only where the trace has no chat span or inference log", () => {
    const path = home.write(
      join(home.dir, 'x.jsonl'),
      [
        chat('t1', 's1', 'r1', 100, 10),
        chat('t1', 's2', 'r2', 120, 12),
        agent('t1', 220, 22),
        inference('t2', 'r3', 50, 5),
        agent('t2', 50, 5),
        agent('t3', 70, 7),
      ].join('\n'),
    );
    const withAll = readOtelSession(path, 'conv-1');
    const none = readOtelSession(home.write(join(home.dir, 'y.jsonl'), agent('t3', 70, 7)), 'conv-1');
    // Four requests: t1's two chat spans, t2's inference log, t3's agent span; each record the same size.
    expect(withAll.ledger.data.length / none.ledger.data.length).toBe(4);
    expect(withAll.facts.models).toEqual(['gpt-4.1', 'unknown']);
  });

  it('garbage lines are counted, and an id that cannot name a session is passed over', () => {
    const path = home.write(
      join(home.dir, 'x.jsonl'),
      [
        // Cut short where a writer died: it names tokens, so it is parsed, and counted as bad.
        '{"attributes":{"gen_ai.usage.input_tokens":12',
        // Not JSON either, but it names nothing read: skipped unparsed, like a metric.
        '{"attributes": not json',
        chat('t1', 's1', 'r1', 100, 10),
        '{"attributes":{"gen_ai.conversation.id":"a/b"}}',
        '{"attributes":{"gen_ai.conversation.id":"esc\\"aped"}}',
        '',
      ].join('\n'),
    );
    expect(conversationsIn(path)).toEqual(['conv-1']);
    const { facts, records } = outputOf(path);
    expect(facts.badLines).toBe(1);
    expect(records).toBeGreaterThan(0);
  });

  it('an export is skimmed whole, a mention across two reads included', () => {
    // The skim reads 1 MiB at a time: this pads the first mention to straddle the first read's end.
    const mention = '{"attributes":{"gen_ai.conversation.id":"across-the-cut"}}';
    const pad = `${'{"pad":"'.padEnd((1 << 20) - 20, 'x')}"}\n`;
    const path = home.write(join(home.dir, 'x.jsonl'), `${pad}${mention}\n${chat('t1', 's1', 'r1', 1, 1)}\n`);
    expect(conversationsIn(path)).toEqual(['across-the-cut', 'conv-1']);
  });

  it('the recorded export names its one session', () => {
    const path = join(RECORDED, '.copilot', 'otel', 'copilot-otel-4.jsonl');
    expect(conversationsIn(path)).toEqual([FAIL]);
    expect(readFileSync(path, 'utf8')).toContain('"service.version":"1.0.102"');
  });
});
