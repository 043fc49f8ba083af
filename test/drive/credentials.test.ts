/**
 * The credential a run used, and `auth` enforced before spawning, through `stream()` and `cctop exec`
 * against fake agents on PATH (`src/drive/test-support/fake-agent.ts`): a refused run starts no
 * process at all, and an outcome says which credential the agent ran under.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DriveError, type Failure, type Request, run, stream } from '../../src/drive/index.js';
import { FakeBin, type Step } from '../../src/drive/test-support/fake-agent.js';
import { EXIT, execCommand } from '../../src/views/cli/exec.js';
import type { Io } from '../../src/views/cli/main.js';

let bin: FakeBin;
beforeEach(() => {
  bin = new FakeBin();
});
afterEach(() => bin.cleanup());

const req = (r: Partial<Request> & Pick<Request, 'agent'>): Request => ({
  prompt: 'say pong',
  cwd: bin.dir,
  parentEnv: bin.env(),
  ...r,
});

async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DriveError) return e.failure;
    throw e;
  }
  throw new Error('expected the run to fail');
}

/** A Claude turn whose init names its key's source as claude 2.1.328 does under ANTHROPIC_API_KEY. */
const claudeTurn: Step[] = [
  {
    out: {
      type: 'system',
      subtype: 'init',
      session_id: 'sess-a',
      model: 'claude-haiku-4-5',
      apiKeySource: 'ANTHROPIC_API_KEY',
    },
  },
  { out: { type: 'result', is_error: false, result: 'pong', session_id: 'sess-a', usage: {} } },
];
const codexTurn: Step[] = [
  { out: { type: 'thread.started', thread_id: 'th-1' } },
  { out: { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'pong' } } },
  { out: { type: 'turn.completed', usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } } },
];

describe('a run that requires a kind of credential', () => {
  it('is refused before anything is spawned when the agent would use another', async () => {
    bin.add('claude', claudeTurn);
    const r = stream(req({ agent: 'claude', auth: 'api-key' }));
    const f = await failure(r.outcome);
    expect(f).toMatchObject({
      kind: 'auth_missing',
      agent: 'claude',
      required: 'api-key',
      found: { kind: 'unknown' },
    });
    expect(f.kind === 'auth_missing' && f.remedy).toContain('ANTHROPIC_API_KEY');
    expect(r.argv).toEqual([]);
    expect(() => bin.record('claude')).toThrow();
    await r.closed;
  });

  it('runs when it would, and the outcome names the credential the agent reported', async () => {
    bin.add('claude', claudeTurn);
    const o = await run(
      req({ agent: 'claude', auth: 'api-key', parentEnv: bin.env({ ANTHROPIC_API_KEY: 'k' }) }),
    );
    expect(o.credential).toEqual({ kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'agent' });
    expect(bin.record('claude').env.ANTHROPIC_API_KEY).toBe('k');
  });

  it('is judged on the environment the agent gets, after the policy', async () => {
    bin.add('codex', codexTurn);
    // CODEX_API_KEY passes the minimal policy; an `only` list without it leaves the agent no key.
    const parentEnv = bin.env({ CODEX_API_KEY: 'k' });
    const o = await run(req({ agent: 'codex', auth: 'api-key', parentEnv }));
    expect(o.credential).toEqual({ kind: 'api-key', variable: 'CODEX_API_KEY', from: 'environment' });
    const refused = await failure(
      run(req({ agent: 'codex', auth: 'api-key', parentEnv, env: { only: ['PATH', 'HOME'] } })),
    );
    expect(refused.kind).toBe('auth_missing');
  });
});

describe('cctop exec --auth', () => {
  async function exec(args: string[], extraEnv: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      out: (s) => out.push(Buffer.from(s).toString()),
      err: (s) => err.push(s),
      isTty: false,
      columns: 100,
      env: bin.env({ XDG_STATE_HOME: join(bin.dir, 'state'), ...extraEnv }),
    };
    const code = await execCommand(['-C', bin.dir, ...args], io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('exits 5 without starting the agent when it would not run under that kind', async () => {
    bin.add('claude', claudeTurn);
    const r = await exec(['claude', '--auth', 'api-key', 'hi']);
    expect(r.code).toBe(EXIT.notAuthenticated);
    expect(r.err).toContain('claude would not run under an API key');
    expect(() => bin.record('claude')).toThrow();
    const json = await exec(['claude', '--json', '--auth', 'api-key', 'hi']);
    expect(JSON.parse(json.out)).toMatchObject({
      kind: 'error',
      error: { kind: 'auth_missing', required: 'api-key' },
    });
  });

  it('shows the credential in the summary, and refuses a kind it does not know', async () => {
    bin.add('claude', claudeTurn);
    const r = await exec(['claude', '--auth', 'api-key', 'hi'], { ANTHROPIC_API_KEY: 'k' });
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toContain(
      'claude (claude-haiku-4-5) · completed · session sess-a · API key (ANTHROPIC_API_KEY)',
    );
    expect((await exec(['claude', '--auth', 'apikey', 'hi'])).code).toBe(EXIT.usage);
  });

  it('--all shows each agent’s kind of credential in the table', async () => {
    bin.add('claude', claudeTurn);
    bin.add('codex', codexTurn);
    const r = await exec(['--all', 'hi'], { PATH: bin.dir, ANTHROPIC_API_KEY: 'k' });
    expect(r.out).toMatch(/^claude\s+completed\s.*\s+api-key$/m);
    expect(r.out).toMatch(/^codex\s+completed\s.*\s+─$/m);
  });
});
