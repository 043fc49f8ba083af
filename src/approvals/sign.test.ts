import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkLink, LINK_KEY_FILE, type LinkClaim, linkKey, linkPath, signLink } from './sign.js';

let runtime: string;
beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), 'cctop-sign-'));
});
afterEach(() => rmSync(runtime, { recursive: true, force: true }));

const CLAIM: LinkClaim = { id: 'a'.repeat(32), verdict: 'allow', via: 'ntfy', expiresAt: 2_000_000 };

describe('signed answer links', () => {
  it('the key is made once, 0600, and read back the same', () => {
    const k = linkKey(runtime)!;
    expect(statSync(join(runtime, LINK_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(linkKey(runtime)!.equals(k)).toBe(true);
  });

  it('a link checks until its request ends, then is expired', () => {
    const k = linkKey(runtime)!;
    const sig = signLink(k, CLAIM);
    expect(checkLink(k, CLAIM, sig, 1_999_999)).toBe('ok');
    expect(checkLink(k, CLAIM, sig, 2_000_000)).toBe('expired');
  });

  it('a signature does not carry over to another verdict, request, way, end or key', () => {
    const k = linkKey(runtime)!;
    const sig = signLink(k, CLAIM);
    expect(checkLink(k, { ...CLAIM, verdict: 'deny' }, sig, 0)).toBe('bad');
    expect(checkLink(k, { ...CLAIM, id: 'b'.repeat(32) }, sig, 0)).toBe('bad');
    expect(checkLink(k, { ...CLAIM, via: 'webhook' }, sig, 0)).toBe('bad');
    expect(checkLink(k, { ...CLAIM, expiresAt: 3_000_000 }, sig, 0)).toBe('bad');
    expect(checkLink(Buffer.alloc(32, 1), CLAIM, sig, 0)).toBe('bad');
    expect(checkLink(k, CLAIM, `${sig}x`, 0)).toBe('bad');
  });

  it('the link names the request, the verdict, the way and the end, and carries the signature', () => {
    const k = linkKey(runtime)!;
    expect(linkPath(k, CLAIM)).toBe(
      `/act/${'a'.repeat(32)}/allow?via=ntfy&exp=2000000&sig=${signLink(k, CLAIM)}`,
    );
  });
});
