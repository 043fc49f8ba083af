// @ts-check
// The page's one-off reads of cctop serve's JSON (the server's description, a session's report and
// conversation), each checked for its shape before the page trusts it, and the errors they end in.
//
// Not here: the event stream that keeps the session document current (live.js).

/** @import { SessionReport } from '../src/report/types.js' */
/** @import { ChatAnswer, ErrorAnswer, InfoAnswer } from '../src/views/serve/api.js' */

export class AuthError extends Error {}

export class HttpError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {ErrorAnswer | null} body
   */
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
export const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * @param {unknown} v
 * @returns {v is ErrorAnswer}
 */
const isError = (v) => isObject(v) && typeof v.error === 'string';

/**
 * @param {unknown} v
 * @returns {v is InfoAnswer}
 */
const isInfo = (v) => isObject(v) && typeof v.level === 'string' && typeof v.version === 'string';

/**
 * @param {unknown} v
 * @returns {v is SessionReport}
 */
const isReport = (v) => isObject(v) && isObject(v.session) && isObject(v.cost) && isObject(v.tools);

/**
 * @param {unknown} v
 * @returns {v is ChatAnswer}
 */
const isChat = (v) =>
  isObject(v) &&
  typeof v.stamp === 'string' &&
  (v.unchanged === true || (Array.isArray(v.turns) && typeof v.supported === 'boolean'));

/**
 * GET `path` with the page's cookie; the parsed JSON, unchecked.
 * @param {string} path
 * @returns {Promise<unknown>}
 */
async function getJson(path) {
  const res = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (res.status === 401) throw new AuthError('this page needs the link cctop serve printed');
  /** @type {unknown} */
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    const err = isError(body) ? body : null;
    throw new HttpError(res.status, err?.error ?? `HTTP ${res.status}`, err);
  }
  return body;
}

/**
 * @param {string} what
 * @returns {never}
 */
function notA(what) {
  throw new Error(`the server answered something that is not ${what}; reload the page`);
}

/** @returns {Promise<InfoAnswer>} */
export async function getInfo() {
  const v = await getJson('/api/info');
  return isInfo(v) ? v : notA('its description');
}

/**
 * @param {string} path `/api/report/<id>`
 * @returns {Promise<SessionReport>}
 */
export async function getReport(path) {
  const v = await getJson(path);
  return isReport(v) ? v : notA('a session report');
}

/**
 * @param {string} path `/api/chat/<id>?…`
 * @returns {Promise<ChatAnswer>}
 */
export async function getChat(path) {
  const v = await getJson(path);
  return isChat(v) ? v : notA('a conversation');
}
