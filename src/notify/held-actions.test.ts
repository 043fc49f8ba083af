import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkKey, signLink } from '../approvals/sign.js';
import { approvalsDir, registerRequest } from '../approvals/store.js';
import { APPROVAL_VERSION, type ApprovalRequest } from '../approvals/types.js';
import { webhookRequest } from './formats.js';
import { withActions } from './held-actions.js';
import type { Notice } from './notice.js';
import { readNotice } from './notice-read.js';

let runtime: string;
beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), 'cctop-notice-actions-'));
});
afterEach(() => rmSync(runtime, { recursive: true, force: true }));

const NOW = Date.now();
const DASHBOARD = 'https://box.example:7777';

const REQUEST: ApprovalRequest = {
  v: APPROVAL_VERSION,
  id: 'c'.repeat(32),
  agent: 'claude',
  session: '590ab5e8-9a56',
  cwd: '/w/app',
  tool: 'Bash',
  input: 'rm -rf build',
  kind: 'permission',
  questions: [],
  at: NOW,
  expiresAt: NOW + 600_000,
  pid: process.pid,
};

const WAITING: Notice = {
  kind: 'waiting',
  key: 'f'.repeat(32),
  harness: 'claude',
  project: '/w/app',
  asked: 'Bash: rm -rf build',
  title: 'Waiting: app',
  text: 'app is waiting for you (/w/app): Bash: rm -rf build',
  url: `${DASHBOARD}/session/590ab5e8-9a56`,
  at: new Date(NOW).toISOString(),
  session: { provider: 'claude', id: '590ab5e8-9a56', title: null, project: '/w/app' },
  probably: false,
};

describe('a waiting notice on a held request carries signed Allow and Deny links', () => {
  it('as ntfy action buttons that POST, and in the JSON body, each ending with the request', () => {
    registerRequest(approvalsDir(runtime)!, REQUEST, NOW);
    const env = { CCTOP_RUNTIME_DIR: runtime };
    const key = linkKey(runtime)!;
    const sig = (verdict: 'allow' | 'deny', via: 'ntfy' | 'webhook') =>
      signLink(key, { id: REQUEST.id, verdict, via, expiresAt: REQUEST.expiresAt });
    const link = (verdict: 'allow' | 'deny', via: 'ntfy' | 'webhook') =>
      `${DASHBOARD}/act/${REQUEST.id}/${verdict}?via=${via}&exp=${REQUEST.expiresAt}&sig=${sig(verdict, via)}`;

    const ntfy = webhookRequest(withActions(WAITING, env, DASHBOARD, 'ntfy', NOW), 'ntfy');
    expect(ntfy.headers.Actions).toBe(
      `http, Allow, ${link('allow', 'ntfy')}, method=POST, clear=true; http, Deny, ${link('deny', 'ntfy')}, method=POST, clear=true`,
    );
    const json = JSON.parse(webhookRequest(withActions(WAITING, env, DASHBOARD, 'json', NOW), 'json').body);
    expect(json.actions).toEqual({
      allow: link('allow', 'webhook'),
      deny: link('deny', 'webhook'),
      expiresAt: new Date(REQUEST.expiresAt).toISOString(),
    });
    // Through the spool between processes, the links survive as they are.
    const spooled = readNotice(JSON.parse(JSON.stringify(withActions(WAITING, env, DASHBOARD, 'json', NOW))));
    expect(spooled?.kind === 'waiting' ? spooled.actions : null).toEqual(json.actions);
  });

  it('none without a held request, or without a dashboard to send them to', () => {
    const env = { CCTOP_RUNTIME_DIR: runtime };
    expect(withActions(WAITING, env, DASHBOARD, 'ntfy', NOW)).toBe(WAITING);
    registerRequest(approvalsDir(runtime)!, REQUEST, NOW);
    expect(withActions(WAITING, env, null, 'ntfy', NOW)).toBe(WAITING);
    expect(webhookRequest(WAITING, 'ntfy').headers.Actions).toBeUndefined();
  });
});
