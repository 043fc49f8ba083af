/**
 * A waiting notice's answer links (docs/act.md): when the waiting session's agent holds its request
 * for an answer from cctop, and notices link to a dashboard, the notice carries two signed links,
 * Allow and Deny, which that dashboard takes without its token (`approvals/sign.ts`). They end with
 * the request's hold and are taken once. Without a dashboard to send them to, a notice has none.
 *
 * Not here: the signature (`approvals/sign.ts`), how each format shows them (`formats.ts`).
 */
import { type LinkVia, linkKey, linkPath } from '../approvals/sign.js';
import { approvalsDir, openRequests } from '../approvals/store.js';
import type { NotifyFormat } from '../config/index.js';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import type { Notice } from './notice.js';

/** `n` with its answer links, when it is a wait on a held request and there is a dashboard. */
export function withActions(
  n: Notice,
  env: Env,
  dashboard: string | null,
  format: NotifyFormat,
  now: number,
): Notice {
  if (n.kind !== 'waiting' || dashboard === null) return n;
  const rt = runtimeDir(env);
  if (rt.kind !== 'ok') return n;
  const dir = approvalsDir(rt.path);
  const key = linkKey(rt.path);
  if (dir === null || key === null) return n;
  const request = openRequests(dir, now).find(
    (r) => r.agent === n.session.provider && r.session === n.session.id,
  );
  // Words cannot be carried by a button: a question is answered on the dashboard's page.
  if (request === undefined || request.kind === 'question') return n;
  const via: LinkVia = format === 'ntfy' ? 'ntfy' : 'webhook';
  const link = (verdict: 'allow' | 'deny') =>
    dashboard + linkPath(key, { id: request.id, verdict, via, expiresAt: request.expiresAt });
  return {
    ...n,
    actions: {
      allow: link('allow'),
      deny: link('deny'),
      expiresAt: new Date(request.expiresAt).toISOString(),
    },
  };
}
