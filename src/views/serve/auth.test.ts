import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { cookieName, newToken, presented, sessionCookie, TOKEN_SHAPE, Tokens } from './auth.js';

// The real comparison, watched: which buffers each check compares (see the timing test below).
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) };
});

const req = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:7777${path}`, { headers });

describe('tokens', () => {
  it('a new token is 256 random bits in base64url, different every run', () => {
    const a = newToken();
    expect(a).toMatch(TOKEN_SHAPE);
    expect(a).toHaveLength(43);
    expect(newToken()).not.toBe(a);
  });

  it('the full token grants full, the derived read-only token grants read, anything else nothing', () => {
    const t = new Tokens(newToken());
    expect(t.level(t.full)).toBe('full');
    expect(t.level(t.read)).toBe('read');
    expect(t.read).not.toBe(t.full);
    expect(t.level(`${t.full}x`)).toBeNull();
    expect(t.level(t.full.slice(0, -1))).toBeNull();
    expect(t.level('')).toBeNull();
    expect(t.level('a'.repeat(10_000))).toBeNull();
  });

  it('the read-only token follows from the full one, so a kept token file keeps its read-only link', () => {
    const full = newToken();
    expect(new Tokens(full).read).toBe(new Tokens(full).read);
    expect(new Tokens(newToken()).read).not.toBe(new Tokens(full).read);
  });

  it('a guess right in its first characters is refused by the same steps as one wrong from the start', () => {
    // What makes the time of a refusal independent of the guess: every check hashes the guess to a
    // 32-byte digest and compares it with both tokens' digests through timingSafeEqual, whatever it
    // is. Checked by the steps taken, not by a clock (timings on a shared machine prove nothing).
    const t = new Tokens(newToken());
    const nearly = `${t.full.slice(0, -1)}${t.full.endsWith('A') ? 'B' : 'A'}`;
    const far = `${t.full[0] === 'A' ? 'B' : 'A'}${t.full.slice(1)}`;
    const compare = vi.mocked(crypto.timingSafeEqual);
    const stepsOf = (guess: string) => {
      compare.mockClear();
      const level = t.level(guess);
      return {
        level,
        steps: compare.mock.calls.map(([a, b]) => [(a as Buffer).length, (b as Buffer).length]),
      };
    };
    const twoDigests = [
      [32, 32],
      [32, 32],
    ];
    expect(stepsOf(nearly)).toEqual({ level: null, steps: twoDigests });
    expect(stepsOf(far)).toEqual({ level: null, steps: twoDigests });
    // A right token takes the same two comparisons: the time does not say which level matched either.
    expect(stepsOf(t.full)).toEqual({ level: 'full', steps: twoDigests });
    expect(stepsOf(t.read)).toEqual({ level: 'read', steps: twoDigests });
  });
});

describe('where a token is read from', () => {
  it('a Bearer header first, then ?t=, then the cookie for this port', () => {
    expect(presented(req('/', { Authorization: 'Bearer abc' }), 7777)).toEqual({
      kind: 'token',
      token: 'abc',
      via: 'bearer',
    });
    expect(presented(req('/?t=xyz'), 7777)).toEqual({ kind: 'token', token: 'xyz', via: 'query' });
    expect(presented(req('/', { Cookie: 'other=1; cctop_7777=ck' }), 7777)).toEqual({
      kind: 'token',
      token: 'ck',
      via: 'cookie',
    });
    expect(presented(req('/', { Cookie: 'cctop_7778=ck' }), 7777)).toEqual({ kind: 'none' });
  });

  it('an explicit wrong token is not rescued by a good cookie', () => {
    const p = presented(req('/?t=wrong', { Cookie: 'cctop_7777=right' }), 7777);
    expect(p).toEqual({ kind: 'token', token: 'wrong', via: 'query' });
  });

  it('an Authorization header that is not a Bearer token is malformed, not ignored', () => {
    expect(presented(req('/', { Authorization: 'Basic dXNlcjpwYXNz' }), 7777).kind).toBe('malformed');
  });

  it('the cookie is named for the port, HttpOnly and SameSite=Strict', () => {
    expect(cookieName(7777)).toBe('cctop_7777');
    expect(sessionCookie(7777, 'tok')).toBe('cctop_7777=tok; Path=/; HttpOnly; SameSite=Strict');
  });
});
