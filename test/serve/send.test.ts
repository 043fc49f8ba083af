/**
 * The session page's send box, over real HTTP on 127.0.0.1: everything that must keep
 * `POST /api/sessions/<id>/send` from typing, each refused with its reason before any key is sent.
 * (That a proven pane is typed into is the lab's test, `test/lab/act-terminal.test.ts`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchedStates } from '../../src/live/agent-state.js';
import { claudeRecord, prompt } from '../../src/test-support/claude-records.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { Tokens } from '../../src/views/serve/auth.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { base, bearer, serve } from './helpers.js';

const ID = 'c0000000-0000-4000-8000-0000000005e0';

describe("the session page's send box refuses what it cannot do", () => {
  let home: FakeHome;
  let s: RunningServer;
  let url: string;

  beforeAll(async () => {
    home = new FakeHome();
    home.write(
      home.claudeFile('-w-send', `${ID}.jsonl`),
      claudeRecord(ID, '/w/send', Date.now(), 'u1', prompt('hi')),
    );
    s = await serve(home, { providers: ['claude'], ...watchedStates(home.env) });
    url = base(s);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
  });

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(`${url}/api/sessions/${ID}/send`, {
      method: 'POST',
      headers: {
        ...bearer(),
        Origin: url,
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };

  it('a request from another site, whether or not the browser says so', async () => {
    expect(
      await post({ text: 'hi' }, { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }),
    ).toEqual({
      status: 403,
      body: { error: 'the API does not answer other sites' },
    });
    expect(await post({ text: 'hi' }, { Origin: 'http://evil.example', 'Sec-Fetch-Site': '' })).toEqual({
      status: 403,
      body: { error: 'text is typed only from the page cctop serve served' },
    });
  });

  it('the read-only link', async () => {
    expect(
      await post({ text: 'hi' }, bearer(new Tokens('test-token-0123456789abcdefghijklmnopqrstuvwxyz').read)),
    ).toEqual({
      status: 403,
      body: { error: 'this link is read-only: it cannot type into sessions' },
    });
  });

  it('a line with a control character, or no line at all', async () => {
    expect(await post({ text: 'a\u001b[2Jb' })).toEqual({
      status: 400,
      body: {
        error:
          'the text holds a control character (U+001B at character 2); cctop types one line of plain text',
      },
    });
    expect(await post({ words: 'hi' })).toEqual({
      status: 400,
      body: { error: '"text" must be the line to type' },
    });
  });

  it('a session no process runs', async () => {
    expect(await post({ text: 'hi' })).toEqual({
      status: 409,
      body: {
        error:
          'cctop sees no process running it; resume it with cctop resume, or start the agent inside tmux or with cctop run',
      },
    });
  });
});
