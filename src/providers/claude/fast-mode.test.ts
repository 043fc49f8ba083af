/**
 * Fast mode: Claude Code 2.1.36 on writes `usage.speed: "fast"` on a response served faster at a
 * multiple of the standard price (six times on Opus 4.6). Read by both extractors alike, carried on
 * the request, priced through the pricing code's table, and marked `fast` where a model is shown.
 *
 * The records are trimmed from what Claude Code 2.1.36 writes for an assistant response.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addLedger, emptyTotals } from '../../model/cost.js';
import { parseObject } from '../../model/json.js';
import { PriceBook } from '../../model/pricing.js';
import { FAST_MULTIPLIERS, fastMultiplier } from '../../model/pricing-speed.js';
import { LocalTime } from '../../model/time.js';
import { FakeHome, jsonl, REPO } from '../../test-support/corpus.js';
import { lineFromBytes } from './bytes.js';
import { parse } from './parse.js';
import { lineFromJson } from './record.js';

const OPUS = 'claude-opus-4-6';

/** An assistant response as Claude Code 2.1.36 writes it (trimmed), with `speed` when given. */
const response = (n: number, at: string, output: number, speed?: string, model = OPUS) => ({
  parentUuid: null,
  isSidechain: false,
  cwd: '/w/app',
  sessionId: 'fast-1',
  version: '2.1.36',
  type: 'assistant',
  uuid: `fast-1-a${n}`,
  timestamp: at,
  requestId: `req_fast_${n}`,
  message: {
    id: `msg_fast_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    usage: {
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: output,
      service_tier: 'standard',
      ...(speed === undefined ? {} : { speed }),
    },
  },
});

const bytesOf = (o: unknown) => {
  const b = Buffer.from(JSON.stringify(o));
  return lineFromBytes(b, 0, b.length);
};

describe('reading fast mode', () => {
  it('a response marked speed "fast" is read as fast, by the byte extractor as by the full parse', () => {
    for (const [speed, fast] of [
      ['fast', true],
      ['standard', false],
      [undefined, false],
    ] as const) {
      const r = response(1, '2026-11-02T09:00:00.000Z', 100, speed);
      const slow = lineFromJson(parseObject(JSON.stringify(r))!);
      expect(slow.usage?.fast).toBe(fast);
      expect(bytesOf(r)).toEqual(slow);
    }
  });
});

describe('pricing fast mode', () => {
  it('the table names the multiples Anthropic charges: six times on Opus 4.6 and 4.7, twice on 4.8', () => {
    expect(FAST_MULTIPLIERS.map((m) => [m.family, m.multiplier])).toEqual([
      ['claude-opus-4-6', 6],
      ['claude-opus-4-7', 6],
      ['claude-opus-4-8', 2],
    ]);
    expect(fastMultiplier('claude-opus-4-6-20260205')).toBe(6);
    expect(fastMultiplier('claude-opus-4-6[1m]')).toBe(6);
    expect(fastMultiplier('us.anthropic.claude-opus-4-7-v1:0')).toBe(6);
    expect(fastMultiplier('claude-opus-4-8@20261001')).toBe(2);
    // Neither a model the table does not name nor one that only starts like a named one.
    expect(fastMultiplier('claude-sonnet-4-5')).toBeNull();
    expect(fastMultiplier('claude-opus-4-60')).toBeNull();
  });

  it('a fast request costs its multiple of the same request at standard speed, kept in a row of its own', () => {
    const home = new FakeHome();
    try {
      const path = home.write(
        home.claudeFile('-w-app', 'fast-1.jsonl'),
        jsonl(
          response(1, '2026-11-02T09:00:00.000Z', 100_000),
          response(2, '2026-11-02T09:01:00.000Z', 100_000, 'fast'),
          // A fast request on a model without a known multiple: no price, never the standard one.
          response(3, '2026-11-02T09:02:00.000Z', 100_000, 'fast', 'claude-sonnet-4-5-20250929'),
        ),
      );
      const file = {
        provider: 'claude' as const,
        path,
        root: join(home.dir, '.claude'),
        sessionHint: 'fast-1',
        role: 'main' as const,
        size: 0,
        mtimeMs: 0,
        ino: 0,
      };
      const result = parse(file, null);
      const totals = emptyTotals();
      const clock = { time: new LocalTime('UTC'), sinceMs: null, untilMs: null };
      addLedger(totals, result.ledger, null, new PriceBook(), 'anthropic', clock);
      const rows = [...totals.byModel.values()].map((m) => [m.model, m.fast, m.requests]);
      expect(rows).toEqual([
        [OPUS, false, 1],
        [OPUS, true, 1],
        ['claude-sonnet-4-5-20250929', true, 1],
      ]);
      const [standard, fast, unknown] = [...totals.byModel.values()];
      expect(standard!.usd).toBeGreaterThan(0);
      expect(fast!.usd! / standard!.usd!).toBeCloseTo(6, 9);
      expect(unknown!.usd).toBeNull();
      expect(totals.estimatedUsd).toBeCloseTo(standard!.usd! * 7, 9);
    } finally {
      home.cleanup();
    }
  });
});

describe('fast mode as a user sees it, through the built CLI', () => {
  const CLI = join(REPO, 'dist', 'cli.js');
  let home: FakeHome;
  let env: Record<string, string>;
  beforeEach(() => {
    home = new FakeHome();
    env = { PATH: process.env.PATH ?? '', ...home.env, XDG_CONFIG_HOME: join(home.dir, '.config') };
    home.write(
      home.claudeFile('-w-app', 'fast-1.jsonl'),
      jsonl(
        response(1, '2026-11-02T09:00:00.000Z', 100_000),
        response(2, '2026-11-03T09:00:00.000Z', 100_000, 'fast'),
      ),
      Date.parse('2026-11-04T00:00:00Z'),
    );
  });
  afterEach(() => home.cleanup());
  const run = (args: string[], input?: string) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('daily charges the fast day six times the standard day for the same tokens', () => {
    const r = run(['daily', '--json']);
    expect(r.code).toBe(0);
    const days = JSON.parse(r.out).periods.map((p: { period: string; cost: { usd: number } }) => [
      p.period,
      p.cost.usd,
    ]);
    expect(days.map(([d]: [string]) => d)).toEqual(['2026-11-02', '2026-11-03']);
    expect(days[1][1] / days[0][1]).toBeCloseTo(6, 6);
  });

  it('report marks the fast requests of a model `fast`, in a cost row of their own', () => {
    const r = run(['report', 'fast-1']);
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').filter((l) => l.includes(' requests'));
    expect(rows.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual(['opus-4.6', 'opus-4.6 fast']);
  });

  it('doctor names fast mode on a model without a known multiple, and the session reads no price for it', () => {
    home.write(
      home.claudeFile('-w-app', 'fast-2.jsonl'),
      jsonl({
        ...response(3, '2026-11-03T10:00:00.000Z', 100_000, 'fast', 'claude-sonnet-4-5-20250929'),
        sessionId: 'fast-2',
      }),
      Date.parse('2026-11-04T00:00:00Z'),
    );
    const doctor = run(['doctor']).out.split('\n');
    const at = doctor.findIndex((l) => l.startsWith('  Models without a price'));
    expect(doctor.slice(at, at + 2)).toEqual([
      '  Models without a price (shown as no price, never $0) (1)',
      '    claude-sonnet-4-5-20250929 fast: 100,010 tokens in fast mode on a model whose fast-mode price cctop does not know (model/pricing-speed.ts): shown as no price',
    ]);
    const sessions = JSON.parse(run(['--json']).out).sessions as {
      id: string;
      cost: { usd: number | null };
    }[];
    expect(sessions.find((x) => x.id === 'fast-2')?.cost.usd).toBeNull();
  });

  it('the status line marks the model `fast` when the newest response ran in fast mode', () => {
    const path = home.claudeFile('-w-app', 'fast-1.jsonl');
    const input = JSON.stringify({ session_id: 'fast-1', transcript_path: path, model: { id: OPUS } });
    const r = run(['statusline', '--format', 'model'], input);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe('opus-4.6 fast');
  });
});
