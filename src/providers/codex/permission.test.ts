import { describe, expect, it } from 'vitest';
import { codexPolicy } from './permission.js';
import { lineFromJson } from './record.js';

/** The policy a `turn_context` line records, read as the reader reads it. */
function policyOf(line: string) {
  const l = lineFromJson(JSON.parse(line));
  if (l.kind !== 'context') throw new Error(`not a turn_context: ${l.kind}`);
  return l.policy;
}

describe("Codex's approval and sandbox policies", () => {
  it('a run with approvals and the sandbox bypassed reads as bypass (codex-cli 0.169.0, trimmed)', () => {
    const line =
      '{"timestamp":"2026-12-01T21:24:15.716Z","ordinal":5,"type":"turn_context","payload":{"cwd":"/tmp/w","approval_policy":"never","approvals_reviewer":"user","permission_profile":{"type":"disabled"},"model":"gpt-5-codex","sandbox_policy":{"type":"danger-full-access"}}}';
    expect(policyOf(line)).toEqual({ mode: 'never/danger-full-access', permission: 'bypass' });
  });

  it('the read-only preset reads as read-only, in the older `mode` spelling too (codex-cli 0.40.0, trimmed)', () => {
    const line =
      '{"timestamp":"2025-09-25T21:12:14.126Z","type":"turn_context","payload":{"cwd":"/w","approval_policy":"on-request","sandbox_policy":{"mode":"read-only"},"model":"gpt-5-codex","effort":"high","summary":"auto"}}';
    expect(policyOf(line)).toEqual({ mode: 'on-request/read-only', permission: 'read-only' });
  });

  it('a workspace-write sandbox edits without asking (a 0.146.0-shaped rollout from the corpus, trimmed)', () => {
    const line =
      '{"timestamp":"2026-08-03T10:48:56.000Z","type":"turn_context","payload":{"cwd":"/tmp/repo","approval_policy":"never","sandbox_policy":{"type":"workspace-write","writable_roots":["/tmp/repo"],"network_access":false}}}';
    expect(policyOf(line)).toEqual({ mode: 'never/workspace-write', permission: 'edits' });
  });

  it('the approval policy decides where the sandbox does not', () => {
    expect(codexPolicy('untrusted', 'workspace-write')?.permission).toBe('ask');
    expect(codexPolicy('on-request', 'workspace-write')?.permission).toBe('edits');
    expect(codexPolicy('on-request', 'danger-full-access')?.permission).toBe('auto');
    expect(codexPolicy('untrusted', 'danger-full-access')?.permission).toBe('ask');
    expect(codexPolicy('never', 'read-only')?.permission).toBe('read-only');
  });

  it('a policy it does not know is unknown, keeping the words that were recorded', () => {
    expect(codexPolicy('never', 'external-sandbox')).toEqual({
      mode: 'never/external-sandbox',
      permission: 'unknown',
    });
    expect(codexPolicy('on-request', null)).toEqual({ mode: 'on-request', permission: 'unknown' });
  });

  it('a turn that names neither policy records none', () => {
    expect(codexPolicy(null, null)).toBeNull();
  });
});
