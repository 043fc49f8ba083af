import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claude } from './agents/claude.js';
import { codex } from './agents/codex.js';
import { copilot } from './agents/copilot.js';
import { MAX_IDENTIFIER_BYTES } from './bounds.js';
import { childEnv } from './env.js';
import { DriveError, type Failure } from './errors.js';
import { planRequest, type Request } from './request.js';

const failureOf = (f: () => unknown): Failure => {
  try {
    f();
  } catch (e) {
    if (e instanceof DriveError) return e.failure;
    throw e;
  }
  throw new Error('expected a DriveError');
};

const base: Request = { agent: 'claude', prompt: 'hi', cwd: process.cwd() };

describe('planning a request', () => {
  it('defaults to read-only, structured output, a new session', () => {
    expect(planRequest(base, claude.caps)).toMatchObject({
      permission: 'read-only',
      format: 'stream',
      session: { kind: 'new' },
      approvals: false,
      interactive: false,
    });
  });

  it("offers the agent's own default mode, which a request gets only by naming it", () => {
    expect(planRequest({ ...base, permission: 'default' }, claude.caps).permission).toBe('default');
    expect(planRequest(base, claude.caps).permission, 'today’s default is unchanged').toBe('read-only');
    expect(
      planRequest({ ...base, permission: 'default', approvals: true }, claude.caps).approvals,
      'a run that asks can be answered',
    ).toBe(true);
  });

  it('refuses what an agent cannot do, naming it', () => {
    expect(failureOf(() => planRequest({ ...base, agent: 'copilot', schema: {} }, copilot.caps))).toEqual({
      kind: 'unsupported',
      agent: 'copilot',
      what: 'an output schema',
    });
    expect(failureOf(() => planRequest({ ...base, agent: 'codex', sessionId: 'u' }, codex.caps)).kind).toBe(
      'unsupported',
    );
    expect(failureOf(() => planRequest({ ...base, agent: 'codex', thinking: false }, codex.caps)).kind).toBe(
      'unsupported',
    );
    expect(
      failureOf(() => planRequest({ ...base, agent: 'copilot', interactive: true }, copilot.caps)).kind,
    ).toBe('unsupported');
  });

  it('refuses an identifier past its bound instead of shortening it', () => {
    const f = failureOf(() =>
      planRequest({ ...base, resume: 'r'.repeat(MAX_IDENTIFIER_BYTES + 1) }, claude.caps),
    );
    expect(f.kind).toBe('invalid_request');
    expect(failureOf(() => planRequest({ ...base, resume: '--dangerous' }, claude.caps)).kind).toBe(
      'invalid_request',
    );
  });

  it('refuses contradictions', () => {
    expect(failureOf(() => planRequest({ ...base, resume: 'a', sessionId: 'b' }, claude.caps)).kind).toBe(
      'invalid_request',
    );
    expect(failureOf(() => planRequest({ ...base, fork: true }, claude.caps)).kind).toBe('invalid_request');
    expect(failureOf(() => planRequest({ ...base, timeoutMs: 0 }, claude.caps)).kind).toBe('invalid_request');
    expect(failureOf(() => planRequest({ ...base, effort: 'high"; x="' }, claude.caps)).kind).toBe(
      'invalid_request',
    );
    expect(failureOf(() => planRequest({ ...base, agent: 'nonesuch' as 'claude' }, claude.caps)).kind).toBe(
      'invalid_request',
    );
  });
});

describe('the environment policy', () => {
  const parent = {
    PATH: '/bin',
    HOME: '/h',
    ANTHROPIC_API_KEY: 'a',
    OPENAI_API_KEY: 'o',
    HTTPS_PROXY: 'p',
    https_proxy: 'p',
    NODE_EXTRA_CA_CERTS: '/ca',
    AWS_SECRET_ACCESS_KEY: 'aws',
    SECRET: 's',
  };

  it('minimal keeps the essentials, the network settings and only this agent’s login', () => {
    expect(childEnv(parent, 'minimal', codex.credentials, {}, 'linux')).toEqual({
      PATH: '/bin',
      HOME: '/h',
      OPENAI_API_KEY: 'o',
      HTTPS_PROXY: 'p',
      https_proxy: 'p',
      NODE_EXTRA_CA_CERTS: '/ca',
    });
  });

  it("minimal keeps the variable Codex's own config names for its provider's key, and only under that config", () => {
    const home = mkdtempSync(join(tmpdir(), 'cctop-env-codex-'));
    try {
      const env = { PATH: '/bin', HOME: home, AZURE_OPENAI_API_KEY: 'az', SECRET: 's' };
      expect(childEnv(env, 'minimal', codex.credentials, {}, 'linux')).toEqual({ PATH: '/bin', HOME: home });
      mkdirSync(join(home, '.codex'));
      writeFileSync(
        join(home, '.codex', 'config.toml'),
        'model_provider = "azure"\n[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\n',
      );
      expect(childEnv(env, 'minimal', codex.credentials, {}, 'linux')).toEqual({
        PATH: '/bin',
        HOME: home,
        AZURE_OPENAI_API_KEY: 'az',
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('minimal keeps IS_SANDBOX, without which Claude 2.1.328 refuses bypass as root', () => {
    // Claude's own words without it: "--dangerously-skip-permissions cannot be used with root/sudo
    // privileges for security reasons", exit 1.
    expect(
      childEnv({ ...parent, IS_SANDBOX: '1' }, 'minimal', claude.credentials, {}, 'linux'),
    ).toMatchObject({
      IS_SANDBOX: '1',
    });
  });

  it('only keeps exactly the names given, and explicit values always win', () => {
    expect(
      childEnv(parent, { only: ['PATH', 'SECRET'] }, claude.credentials, { SECRET: 'mine' }, 'linux'),
    ).toEqual({
      PATH: '/bin',
      SECRET: 'mine',
    });
  });

  it('matches names case-insensitively on Windows', () => {
    expect(
      childEnv({ Path: 'C:\\bin', SystemRoot: 'C:\\Windows' }, 'minimal', claude.credentials, {}, 'win32'),
    ).toEqual({
      Path: 'C:\\bin',
      SystemRoot: 'C:\\Windows',
    });
  });
});
