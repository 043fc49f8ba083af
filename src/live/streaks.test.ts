/**
 * The failing streak a session's agents end on, over call logs as `CallLog` holds them (the shape
 * every provider's `calls` fills; these are trimmed to the fields a streak reads).
 */
import { describe, expect, it } from 'vitest';
import type { Call, CallLog } from '../model/calls.js';
import { trailingStreaks } from './streaks.js';

let t = Date.parse('2026-03-10T10:00:00Z');

function call(name: string, argument: string, outcome: 'failed' | 'ok' | 'running', origin = 'main'): Call {
  t += 5000;
  return {
    origin,
    name,
    detail: argument,
    argument,
    startMs: t,
    endMs: outcome === 'running' ? null : t + 1000,
    result: outcome === 'running' ? null : outcome === 'failed' ? 'Exit code 1' : 'ok',
    failed: outcome === 'failed',
    added: 0,
    removed: 0,
    files: [],
    growth: null,
    shared: false,
  };
}

const log = (...calls: Call[]): CallLog => ({
  calls,
  dropped: 0,
  requests: [],
  compactions: [],
  breakdown: null,
});

describe('trailing failed streaks', () => {
  it('counts the same failing call at the end of the log, back to the last success', () => {
    const s = trailingStreaks(
      log(
        call('Bash', 'npm test', 'failed'),
        call('Bash', 'npm test', 'ok'),
        call('Bash', 'npm test', 'failed'),
        call('Bash', 'npm test', 'failed'),
        call('Bash', 'npm test', 'failed'),
      ),
    );
    expect(s).toMatchObject([{ origin: 'main', name: 'Bash', argument: 'npm test', count: 3 }]);
  });

  it('another input ends a streak: the same tool with a different command is another call', () => {
    const s = trailingStreaks(
      log(
        call('Bash', 'npm test', 'failed'),
        call('Bash', 'npm run lint', 'failed'),
        call('Bash', 'npm test', 'failed'),
      ),
    );
    expect(s).toMatchObject([{ count: 1 }]);
  });

  it('the same call tried again and still running does not end the streak; another call does', () => {
    const failing = [call('Bash', 'npm test', 'failed'), call('Bash', 'npm test', 'failed')];
    expect(trailingStreaks(log(...failing, call('Bash', 'npm test', 'running')))).toMatchObject([
      { count: 2 },
    ]);
    expect(trailingStreaks(log(...failing, call('Read', '/w/a.ts', 'running')))).toEqual([]);
  });

  it('each agent is its own row of calls', () => {
    const s = trailingStreaks(
      log(
        call('Bash', 'pytest', 'failed', 'agent-1'),
        call('Read', '/w/a.ts', 'ok'),
        call('Bash', 'pytest', 'failed', 'agent-1'),
        call('Grep', 'TODO', 'ok'),
      ),
    );
    expect(s).toMatchObject([{ origin: 'agent-1', count: 2 }]);
  });

  it('a streak keeps its id as it grows, and a new streak after a success has another', () => {
    const first = [call('Bash', 'npm test', 'failed'), call('Bash', 'npm test', 'failed')];
    const grown = [...first, call('Bash', 'npm test', 'failed')];
    const again = [...grown, call('Bash', 'npm test', 'ok'), call('Bash', 'npm test', 'failed')];
    const id = (calls: Call[]) => trailingStreaks(log(...calls))[0]!.id;
    expect(id(grown)).toBe(id(first));
    expect(id(again)).not.toBe(id(first));
  });
});
