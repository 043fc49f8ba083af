import { describe, expect, it } from 'vitest';
import { agentId, seq, sessionId, stamp } from './ids.js';
import { MAX_SESSION_ID_CHARS } from './limits.js';

describe('what a URL may name', () => {
  it('session ids as harnesses write them pass: uuids, file stems, prefixes', () => {
    for (const id of [
      '764f8035-34f4-4dde-aea5-48b7af15c48f',
      'happy-cli__task_sdk',
      'agent-sessions__claude-small.synthetic',
      'ses_stage0',
      '0199',
    ])
      expect(sessionId(id)).toEqual({ ok: true, value: id });
  });

  it('an oversized session id is rejected rather than trimmed', () => {
    const long = 'a'.repeat(MAX_SESSION_ID_CHARS + 1);
    expect(sessionId(long).ok).toBe(false);
    expect(sessionId(long.slice(0, MAX_SESSION_ID_CHARS)).ok).toBe(true);
  });

  it('separators, dot-dot and markup are not ids', () => {
    for (const id of ['../etc', 'a/b', 'a\\b', '..', '.hidden', 'a..b', '<script>', 'a b', '', 'a\u0000'])
      expect(sessionId(id).ok, JSON.stringify(id)).toBe(false);
  });

  it('agent ids are plain tokens; turn numbers are whole numbers; stamps are hex', () => {
    expect(agentId('a1b2-c3_d')).toEqual({ ok: true, value: 'a1b2-c3_d' });
    expect(agentId(undefined)).toEqual({ ok: true, value: null });
    expect(agentId('../x').ok).toBe(false);
    expect(seq('120')).toEqual({ ok: true, value: 120 });
    expect(seq('-1').ok).toBe(false);
    expect(seq('1e3').ok).toBe(false);
    expect(seq('9'.repeat(10)).ok).toBe(false);
    expect(stamp('0af3')).toEqual({ ok: true, value: '0af3' });
    expect(stamp('0AF3').ok).toBe(false);
  });
});
