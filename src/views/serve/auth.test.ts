import { describe, expect, it } from 'vitest';
import { cookieName, newToken, presented, sessionCookie, TOKEN_SHAPE, Tokens } from './auth.js';

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

  it('a guess right in its first characters takes no longer to refuse than one wrong from the start', () => {
    // The guarantee is structural: both sides are hashed to 32-byte digests and compared with
    // timingSafeEqual, so no step looks at how much of the guess is right. This is a coarse check of
    // that (medians of interleaved rounds, with room for a busy machine), not a proof.
    const t = new Tokens(newToken());
    const nearly = `${t.full.slice(0, -1)}${t.full.endsWith('A') ? 'B' : 'A'}`;
    const far = `${t.full[0] === 'A' ? 'B' : 'A'}${t.full.slice(1)}`;
    const time = (guess: string) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 2000; i++) t.level(guess);
      return Number(process.hrtime.bigint() - start);
    };
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < 15; round++) {
      a.push(time(nearly));
      b.push(time(far));
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const ratio = median(a) / median(b);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
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
