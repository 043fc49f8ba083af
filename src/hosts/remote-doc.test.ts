import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../model/json.js';
import { MAX_REMOTE_TEXT_CHARS, readRemoteDocument, remoteSession } from './remote-doc.js';

/** A session as cctop 0.1.0's `--json` wrote it (trimmed to what the reader looks at). */
const SESSION = {
  provider: 'claude',
  id: 'agentcmd__full-session-two',
  file: '/home/me/.claude/projects/-work-demo/agentcmd__full-session-two.jsonl',
  deleted: false,
  subagentFiles: 0,
  project: '/home/me/src/app',
  title: 'please move the + button',
  branch: 'main',
  model: 'claude-sonnet-4-5-20250929',
  models: ['claude-sonnet-4-5-20250929'],
  reasoningEffort: null,
  permissionMode: 'default',
  permission: 'ask',
  startedAt: '2025-10-24T20:50:22.786Z',
  lastActiveAt: '2025-10-24T21:29:14.372Z',
  state: 'idle',
  stateDetail: null,
  stateSource: 'inferred',
  running: true,
  process: { pids: [4242], cpu: 3.5, memory: 1000, command: 'claude' },
  pendingTool: null,
  inferred: null,
  tokens: { input: 45, output: 107, cacheRead: 307871, cacheWrite: 63095, reasoning: null },
  requests: 11,
  cost: {
    usd: 0.330708,
    source: 'estimated',
    included: false,
    unpriced: [],
    byModel: [
      {
        model: 'claude-sonnet-4-5-20250929',
        tokens: { input: 45, output: 107, cacheRead: 307871, cacheWrite: 63095, reasoning: null },
        usd: 0.330708,
        requests: 11,
      },
    ],
    byHour: { start: '2026-11-30T09:00:00.000Z', usd: Array(48).fill(0) },
    byDay: { start: '2026-11-02', usd: Array(31).fill(0) },
  },
  context: { used: 52909, window: 200000, compactAt: 167000 },
  tools: { calls: 27, failed: 1, byTool: { Read: { calls: 9, failed: 0 } } },
  lines: { added: 39, removed: 15 },
  compactions: 0,
  aborts: 0,
  rateLimits: null,
  driven: { program: 'bot' },
};

const doc = (sessions: unknown[], extra: object = {}) =>
  Buffer.from(
    JSON.stringify({ version: 1, generatedAt: '2026-12-01T00:00:00Z', sessions, problems: [], ...extra }),
  );

describe('a remote session document', () => {
  it('is read back as the session its cctop wrote, less its process ids and its driven run', () => {
    const r = readRemoteDocument(doc([SESSION]));
    expect(r).toMatchObject({ kind: 'read', skipped: 0 });
    if (r.kind !== 'read') return;
    const { driven: _, process, ...rest } = SESSION;
    expect(r.sessions[0]).toEqual({ ...rest, process: { ...process, pids: [] } });
  });

  it('a field of the wrong type reads as unknown, never as zero', () => {
    const s = remoteSession({
      ...SESSION,
      tokens: { input: '45', output: -1, cacheRead: Number.MAX_VALUE, cacheWrite: null },
      cost: { ...SESSION.cost, usd: 'lots' },
      context: 'full',
      lines: null,
    })!;
    expect(s.tokens).toEqual({
      input: null,
      output: null,
      cacheRead: Number.MAX_VALUE,
      cacheWrite: null,
      reasoning: null,
    });
    expect(s.cost.usd).toBeNull();
    expect(s.context).toEqual({ used: null, window: null, compactAt: null });
    expect(s.lines).toEqual({ added: null, removed: null });
  });

  it('a session without a known harness, an id or a state is dropped and counted', () => {
    const r = readRemoteDocument(
      doc([
        SESSION,
        { ...SESSION, provider: 'emacs' },
        { ...SESSION, id: 7 },
        { ...SESSION, state: 'dancing' },
        'x',
      ]),
    );
    expect(r).toMatchObject({ kind: 'read', skipped: 4 });
    if (r.kind === 'read') expect(r.sessions).toHaveLength(1);
  });

  it(`text past ${MAX_REMOTE_TEXT_CHARS} characters is cut`, () => {
    const s = remoteSession({ ...SESSION, title: 'x'.repeat(100_000) })!;
    expect(s.title).toHaveLength(MAX_REMOTE_TEXT_CHARS);
  });

  it('names what a non-document is: nothing, not JSON, the Rust cctop’s list, no version', () => {
    expect(readRemoteDocument(Buffer.alloc(0))).toEqual({
      kind: 'not-a-document',
      why: 'it printed nothing',
    });
    expect(readRemoteDocument(Buffer.from('<html>502</html>'))).toEqual({
      kind: 'not-a-document',
      why: 'it did not print JSON',
    });
    expect(readRemoteDocument(Buffer.from('[{"session_id":"x","provider":"claude"}]'))).toMatchObject({
      kind: 'not-a-document',
      why: expect.stringContaining('Rust cctop'),
    });
    expect(readRemoteDocument(Buffer.from('{"sessions":[]}'))).toMatchObject({ kind: 'not-a-document' });
  });

  it('a document of another version is refused with the version it says', () => {
    expect(readRemoteDocument(doc([SESSION], { version: 2 }))).toEqual({ kind: 'version', remote: 2 });
  });

  it('JSON nested past the depth bound is refused, not walked', () => {
    const deep = `{"version":1,"sessions":[${'['.repeat(MAX_JSON_DEPTH * 4)}${']'.repeat(MAX_JSON_DEPTH * 4)}]}`;
    expect(readRemoteDocument(Buffer.from(deep))).toEqual({
      kind: 'not-a-document',
      why: 'its JSON nests too deep',
    });
  });
});
