/**
 * The JSON-RPC peer over an in-memory stdin. Replies and requests are the shapes Gemini CLI 0.61.0
 * wrote in its ACP mode in the conformance lab.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
import { MAX_PENDING_REQUESTS, RPC_ERROR, RpcPeer } from './peer.js';

function peer<Tag = string>(): { p: RpcPeer<Tag>; written: () => unknown[] } {
  const stdin = new PassThrough();
  const chunks: string[] = [];
  stdin.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const p = new RpcPeer<Tag>();
  p.attach(stdin);
  return {
    p,
    written: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as unknown),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the JSON-RPC peer', () => {
  it('numbers its requests itself and hands each reply back with the tag it was sent with', async () => {
    const { p, written } = peer<'initialize' | 'session'>();
    expect(p.request('initialize', { protocolVersion: 1 }, 'initialize')).toBeNull();
    expect(p.request('session/new', { cwd: '/w', mcpServers: [] }, 'session')).toBeNull();
    await tick();
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
    ]);
    // Answered out of order: each reply still finds its own request.
    expect(
      p.read('{"jsonrpc":"2.0","id":1,"result":{"sessionId":"8715572b-53df-4090-ad2a-ff114e2b25b6"}}'),
    ).toEqual({
      kind: 'reply',
      tag: 'session',
      reply: { kind: 'result', value: { sessionId: '8715572b-53df-4090-ad2a-ff114e2b25b6' } },
    });
    expect(p.read('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}')).toMatchObject({
      kind: 'reply',
      tag: 'initialize',
    });
    expect(p.pending).toBe(0);
  });

  it('an error reply keeps its code and message (Gemini CLI 0.61.0 without an API key)', () => {
    const { p } = peer();
    p.request('session/new', {}, 'session');
    expect(
      p.read(
        '{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Gemini API key is missing or not configured."}}',
      ),
    ).toEqual({
      kind: 'reply',
      tag: 'session',
      reply: {
        kind: 'error',
        code: -32000,
        message: 'Gemini API key is missing or not configured.',
        data: null,
      },
    });
  });

  it("the agent's requests keep their ids, numbers or strings, for the answer", async () => {
    const { p, written } = peer();
    const asked = p.read(
      '{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","options":[]}}',
    );
    expect(asked).toEqual({
      kind: 'request',
      id: 0,
      method: 'session/request_permission',
      params: { sessionId: 's', options: [] },
    });
    expect(p.read('{"jsonrpc":"2.0","id":"fs-1","method":"fs/read_text_file","params":{}}')).toMatchObject({
      kind: 'request',
      id: 'fs-1',
    });
    p.respond(0, { outcome: { outcome: 'selected', optionId: 'proceed_once' } });
    p.refuse('fs-1', RPC_ERROR.methodNotFound, 'cctop offers no fs/read_text_file');
    await tick();
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } },
      { jsonrpc: '2.0', id: 'fs-1', error: { code: -32601, message: 'cctop offers no fs/read_text_file' } },
    ]);
  });

  it('tells notifications, replies to nothing and lines that are not JSON-RPC apart', () => {
    const { p } = peer();
    expect(
      p.read(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}}}',
      ),
    ).toMatchObject({ kind: 'notification', method: 'session/update' });
    expect(p.read('{"jsonrpc":"2.0","id":7,"result":{}}')).toEqual({ kind: 'stray', id: 7 });
    expect(p.read('Ripgrep is not available. Falling back to GrepTool.')).toEqual({
      kind: 'unparsed',
      sample: 'Ripgrep is not available. Falling back to GrepTool.',
    });
    expect(p.read('{"id":1,"result":{}}'), 'no jsonrpc member').toMatchObject({ kind: 'unparsed' });
    expect(p.read(`${'['.repeat(300)}${']'.repeat(300)}`), 'too deep to read').toMatchObject({
      kind: 'unparsed',
    });
  });

  it("a peer for Codex's app server reads lines without the version member, but not another version", () => {
    const p = new RpcPeer<string>({ versionMember: 'optional' });
    expect(p.read('{"method":"turn/started","params":{}}')).toEqual({
      kind: 'notification',
      method: 'turn/started',
      params: {},
    });
    expect(p.read('{"jsonrpc":"1.0","method":"turn/started"}').kind).toBe('unparsed');
  });

  it('a request whose id cannot be echoed back is not one it can answer', () => {
    const { p } = peer();
    expect(p.read('{"jsonrpc":"2.0","id":{"x":1},"method":"fs/read_text_file"}').kind).toBe('unparsed');
    const long = 'i'.repeat(MAX_IDENTIFIER_BYTES + 1);
    expect(p.read(`{"jsonrpc":"2.0","id":"${long}","method":"fs/read_text_file"}`).kind).toBe('unparsed');
  });

  it(`keeps at most ${MAX_PENDING_REQUESTS} requests waiting and sends no more past that`, () => {
    const { p } = peer();
    for (let i = 0; i < MAX_PENDING_REQUESTS; i++) expect(p.request('m', {}, 'x')).toBeNull();
    expect(p.request('m', {}, 'x')).toBe('too-many-pending');
    p.read('{"jsonrpc":"2.0","id":3,"result":null}');
    expect(p.request('m', {}, 'x'), 'a reply makes room').toBeNull();
  });

  it('after end() nothing is written, and a late reply is a stray', async () => {
    const { p, written } = peer();
    p.request('session/prompt', {}, 'prompt');
    p.end();
    expect(p.open).toBe(false);
    expect(p.request('m', {}, 'x')).toBe('closed');
    p.notify('session/cancel', {});
    await tick();
    expect(written()).toHaveLength(1);
    expect(p.read('{"jsonrpc":"2.0","id":0,"result":{"stopReason":"end_turn"}}').kind).toBe('stray');
  });
});
