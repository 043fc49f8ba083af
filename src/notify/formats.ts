/**
 * A notice as a webhook request, in the three shapes `[notify] format` names:
 *
 * - `json`: the notice as one small object, `{ v: 1, kind, session, harness, project, asked, title,
 *   text, url, at }` (and `sessions` for a collision), for a receiver of one's own;
 * - `ntfy`: ntfy's HTTP publish API: the text as a plain body, the heading in `Title`, a tag per kind
 *   in `Tags` (ntfy shows the matching emoji), the dashboard link in `Click`;
 * - `slack`: a Slack incoming webhook's `{ text }` (Mattermost, Rocket.Chat and Discord's `/slack`
 *   endpoint take it too).
 *
 * The notice's strings are already safe lines (`notice.ts`); what is escaped here is only what each
 * format itself would read as markup: Slack's `&`, `<` and `>` (`<!channel>` pings everyone), and
 * any non-ASCII in an HTTP header, which is sent as an RFC 2047 encoded word (ntfy decodes it).
 *
 * Not here: sending (`webhook.ts`).
 */
import type { NotifyFormat } from '../config/index.js';
import type { Notice, NoticeKind } from './notice.js';

/** Bumped when a field of the JSON body changes meaning; adding one does not bump it. */
export const WEBHOOK_JSON_VERSION = 1;

export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

/** The ntfy tag of each kind: a short code ntfy shows as an emoji before the title. */
const NTFY_TAG: Record<NoticeKind, string> = {
  waiting: 'hourglass_flowing_sand',
  error: 'x',
  budget: 'money_with_wings',
  'error-loop': 'repeat',
  stall: 'zzz',
  'burn-rate': 'fire',
  collision: 'warning',
  quota: 'battery',
  secret: 'key',
};

/** The body of the `json` format. */
export function jsonBody(n: Notice): Record<string, unknown> {
  return {
    v: WEBHOOK_JSON_VERSION,
    kind: n.kind,
    session: n.session,
    harness: n.harness,
    project: n.project,
    asked: n.asked,
    title: n.title,
    text: n.text,
    url: n.url,
    at: n.at,
    ...(n.kind === 'collision' ? { sessions: n.sessions } : {}),
    ...(n.kind === 'waiting' && n.actions ? { actions: n.actions } : {}),
  };
}

/**
 * ntfy's action buttons for a held request: each an `http` action that POSTs its signed link, and
 * clears the notification once pressed. Commas and semicolons separate ntfy's fields and actions;
 * a signed link has neither (base64url and digits).
 */
function ntfyActions(n: Notice): Record<string, string> {
  if (n.kind !== 'waiting' || !n.actions) return {};
  const { allow, deny } = n.actions;
  if (/[,;]/.test(allow + deny)) return {};
  return {
    Actions: `http, Allow, ${allow}, method=POST, clear=true; http, Deny, ${deny}, method=POST, clear=true`,
  };
}

/** A header value as HTTP carries it: ASCII as it is, anything else as a UTF-8 encoded word. */
export function headerText(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return s;
  return `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

/** Slack's three markup characters, as its docs say to escape them. */
export function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webhookRequest(n: Notice, format: NotifyFormat): WebhookRequest {
  switch (format) {
    case 'json':
      return {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(jsonBody(n)),
      };
    case 'ntfy':
      return {
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          Title: headerText(n.title),
          Tags: NTFY_TAG[n.kind],
          ...(n.url === null ? {} : { Click: n.url }),
          ...ntfyActions(n),
        },
        body: n.text,
      };
    case 'slack': {
      // A `|` would end the link's address early: Slack reads `<address|label>`.
      const to = (url: string, label: string) => `\n<${slackEscape(url.replace(/\|/g, '%7C'))}|${label}>`;
      const acts =
        n.kind === 'waiting' && n.actions ? to(n.actions.allow, 'Allow') + to(n.actions.deny, 'Deny') : '';
      const link = (n.url === null ? '' : to(n.url, 'Open in cctop')) + acts;
      return {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: `*${slackEscape(n.title)}*\n${slackEscape(n.text)}${link}` }),
      };
    }
  }
}
