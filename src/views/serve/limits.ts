/**
 * Every bound the server keeps, in one place, each with what it protects against. The server faces a
 * browser, but on a non-loopback bind it faces whatever can reach the machine: nothing a request says
 * may make it hold more memory, more sockets or more time than these.
 */

/** Request line plus headers. A browser's request with a cookie is under 2 KB; 16 KB leaves room for proxies. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** A URL longer than this is not one the page builds (its longest is a chat page with three parameters). */
export const MAX_URL_CHARS = 4096;

/**
 * A request body announced larger than this is refused before it is read. Only the acting route
 * reads a body at all, and it takes far less (`MAX_ANSWER_BYTES` in `act.ts`).
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** Time for a client to send its whole request (a slow-loris holds a socket forever otherwise). */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A socket that neither reads nor writes for this long is closed. Streams ping well inside it, so
 * only a client that has stopped reading (its buffers full, the writes stalled) reaches it.
 */
export const IDLE_TIMEOUT_MS = 30_000;

/** How often node looks for sockets past the two limits above. */
export const TIMEOUT_CHECK_MS = 2_000;

/** Open sockets. A page holds two or three; this leaves room for many tabs and phones, not a flood. */
export const MAX_CONNECTIONS = 256;

/** Event streams at once: one per open tab. Past this a new stream is answered 503, not queued. */
export const MAX_STREAMS = 200;

/** A stream that has sent nothing for this long gets a ping, so the page can tell silence from a dead link. */
export const PING_MS = 15_000;

/** What the page is told to wait before reconnecting a dropped stream. */
export const RETRY_MS = 3_000;

/**
 * Rendered answers kept for reuse (reports per document version, conversations per file stamp), so
 * several tabs on one busy session read its transcript once per change, not once each.
 */
export const MAX_CACHED_ANSWERS = 16;

/** Session ids: the longest any harness writes is a file stem; past this it is not an id. */
export const MAX_SESSION_ID_CHARS = 256;

/** Subagent ids name a file; past this (or outside the plain characters) they are refused. */
export const MAX_AGENT_ID_CHARS = 128;

/** Ports tried past a busy default (7777, 7778, …) before giving up. */
export const MAX_PORT_STEPS = 20;
