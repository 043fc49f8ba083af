import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome } from '../../test-support/corpus.js';
import { attachment, downloadName, MAX_FILENAME_BYTES } from './download.js';
import { type RunningServer, startServer } from './server.js';

describe('the Markdown download of a session', () => {
  let home: FakeHome;
  let server: RunningServer;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(async () => {
    await server?.close();
    home.cleanup();
  });

  it('a session id with a quote, a bell, a bidi override and other scripts downloads under a safe name', async () => {
    // Claude Code names a session after its file: any name a file can have is a session id.
    home.write(
      home.claudeFile('-w', 'dl-"quote\u00e9\u4e2d\u0007\u202e.jsonl'),
      claudeResponse('1', 5, '2026-11-29T10:00:00Z'),
    );
    server = await startServer({
      env: home.env,
      plan: 'retail',
      providers: null,
      useIndex: false,
      threads: 1,
      delayMs: 60_000,
      bind: '127.0.0.1',
      port: 0,
      stepPort: false,
      token: null,
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/api/chat/dl-/markdown`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="dl-_quote____.md"; filename*=UTF-8''dl-_quote%C3%A9%E4%B8%AD__.md`,
    );
  });
});

describe('download names', () => {
  it('keep the characters of any script, and lose what a file name or header cannot hold', () => {
    expect(downloadName('ses_日本語-é', 'md')).toBe('ses_日本語-é.md');
    expect(downloadName('a/b\\c:d*e?f"g<h>i|j', 'md')).toBe('a_b_c_d_e_f_g_h_i_j.md');
    expect(downloadName('x\u0000\u001b[31m\u009b\u2028\u2066y', 'md')).toBe('x__[31m___y.md');
    // A lone surrogate (JSON can hold one) cannot be encoded as UTF-8.
    expect(downloadName('a\ud800b', 'md')).toBe('a_b.md');
  });

  it('are never hidden, empty, or longer than a file system allows', () => {
    expect(downloadName('..', 'md')).toBe('session.md');
    expect(downloadName('.hidden', 'md')).toBe('hidden.md');
    const long = downloadName('中'.repeat(500), 'md');
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_FILENAME_BYTES + '.md'.length);
    expect(long).toBe(`${'中'.repeat(Math.floor(MAX_FILENAME_BYTES / 3))}.md`);
  });

  it('are sent as plain ASCII and as RFC 8187 UTF-8, whose reserved characters are escaped', () => {
    expect(attachment("it's (a) test!", 'md')).toBe(
      `attachment; filename="it_s__a__test_.md"; filename*=UTF-8''it%27s%20%28a%29%20test!.md`,
    );
  });
});
