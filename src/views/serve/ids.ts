/**
 * What a request may name. Every identifier from a URL is checked against a shape and a length and
 * refused when it does not fit: never trimmed to fit (a shortened id would name something else, or
 * nothing), never passed on to a path.
 */
import { MAX_AGENT_ID_CHARS, MAX_SESSION_ID_CHARS } from './limits.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** The characters harnesses use in session ids (uuids, file stems such as `happy-cli__task_sdk`). */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+-]*$/;
const AGENT_ID = /^[A-Za-z0-9_-]+$/;
const SEQ = /^\d{1,9}$/;
/** A stamp is what this server wrote: hex. */
const STAMP = /^[0-9a-f]{1,64}$/;

export function sessionId(v: string | undefined): Checked<string> {
  if (v === undefined || v.length === 0) return { ok: false, error: 'a session id is required' };
  if (v.length > MAX_SESSION_ID_CHARS)
    return { ok: false, error: `a session id is at most ${MAX_SESSION_ID_CHARS} characters` };
  if (!SESSION_ID.test(v) || v.includes('..')) return { ok: false, error: 'not a session id' };
  return { ok: true, value: v };
}

export function agentId(v: string | undefined): Checked<string | null> {
  if (v === undefined || v.length === 0) return { ok: true, value: null };
  if (v.length > MAX_AGENT_ID_CHARS)
    return { ok: false, error: `an agent id is at most ${MAX_AGENT_ID_CHARS} characters` };
  if (!AGENT_ID.test(v)) return { ok: false, error: 'not an agent id' };
  return { ok: true, value: v };
}

export function seq(v: string | undefined): Checked<number | null> {
  if (v === undefined || v.length === 0) return { ok: true, value: null };
  if (!SEQ.test(v)) return { ok: false, error: 'before: expected a turn number' };
  return { ok: true, value: Number(v) };
}

export function stamp(v: string | undefined): Checked<string | null> {
  if (v === undefined || v.length === 0) return { ok: true, value: null };
  if (!STAMP.test(v)) return { ok: false, error: 'since: expected a stamp this server sent' };
  return { ok: true, value: v };
}
