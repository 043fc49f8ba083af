// Talking to cctop serve: JSON reads, and the event stream that pushes the session document.
//
// The stream reopens by itself: EventSource retries a dropped connection, and a stream that has
// been silent for more than two pings (a phone that slept, a proxy that stalled) is closed and
// opened again. When the stream cannot be had at all, the document is polled instead.

const PING_MS = 15_000;
/** Silence longer than this means the stream is dead even if the socket says otherwise. */
const SILENT_MS = 2 * PING_MS + 5_000;
const POLL_MS = 5_000;

export class AuthError extends Error {}

export class HttpError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export async function getJson(path) {
  const res = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (res.status === 401) throw new AuthError('this page needs the link cctop serve printed');
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) throw new HttpError(res.status, body?.error ?? `HTTP ${res.status}`, body);
  return body;
}

/**
 * Keep `onDoc` fed with the newest session document; `onStatus` hears 'live', 'reconnecting',
 * 'polling' or 'denied'.
 */
export function follow(onDoc, onStatus) {
  let es = null;
  let watchdog = null;
  let poller = null;
  let lastTag = null;

  const arm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(reopen, SILENT_MS);
  };

  const poll = async () => {
    try {
      const res = await fetch('/api/sessions', {
        credentials: 'same-origin',
        headers: lastTag ? { 'If-None-Match': lastTag } : {},
      });
      if (res.status === 401) {
        onStatus('denied');
        return;
      }
      if (res.status === 200) {
        lastTag = res.headers.get('ETag');
        onDoc(await res.json());
      }
    } catch {
      // the next poll tries again
    }
  };

  const startPolling = () => {
    if (poller) return;
    onStatus('polling');
    poll();
    poller = setInterval(poll, POLL_MS);
  };

  const stopPolling = () => {
    clearInterval(poller);
    poller = null;
  };

  function open() {
    es = new EventSource('/api/events');
    es.addEventListener('open', () => {
      arm();
      stopPolling();
      onStatus('live');
    });
    es.addEventListener('sessions', (e) => {
      arm();
      onDoc(JSON.parse(e.data));
    });
    es.addEventListener('ping', arm);
    es.addEventListener('error', async () => {
      if (es.readyState !== EventSource.CLOSED) {
        onStatus('reconnecting');
        return;
      }
      // Closed for good (an HTTP error): find out whether the link itself is the problem.
      try {
        await getJson('/api/info');
        startPolling();
        setTimeout(reopen, 10_000);
      } catch (err) {
        if (err instanceof AuthError) onStatus('denied');
        else setTimeout(reopen, 5_000);
      }
    });
  }

  function reopen() {
    es?.close();
    open();
  }

  open();
  document.addEventListener('visibilitychange', () => {
    // Back from a sleeping tab: do not wait for the watchdog to notice a dead stream.
    if (document.visibilityState === 'visible' && es?.readyState === EventSource.CLOSED) reopen();
  });
}
