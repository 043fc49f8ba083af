/**
 * Every limit drive puts on memory, in one place, each with the reason for its number.
 *
 * An agent can stream for hours and a broken or hostile one can write anything, so nothing drive
 * keeps may grow with the length of a run. Payloads that grow too large are shortened and marked;
 * identifiers that grow too large are rejected, because a shortened id is not a smaller version of
 * the value but a wrong one (it resumes nothing and matches no call).
 */

/**
 * The most drive keeps of any captured buffer: stderr, and the answer of a plain-text run.
 *
 * A megabyte is far more prose than anyone reads in a terminal and enough for any diagnosis; what
 * it caps is a runaway agent turning a long run into an out-of-memory crash instead of an answer.
 * The earliest output is kept, because that is where a banner, a usage error or the start of an
 * answer lives.
 */
export const MAX_CAPTURE = 1024 * 1024;

/**
 * The longest output line drive reads whole. Past this the rest of the line is dropped as it
 * arrives and the kept head is counted as unparsed.
 *
 * The other bounds limit what is kept; this one limits what a line reader accumulates while it
 * waits for a newline, which an endless line would otherwise grow forever. A huge tool result as one
 * JSON object is the ordinary large line, and 512 KiB holds any the agents were seen to write.
 */
export const MAX_LINE = 512 * 1024;

/**
 * The largest payload one event carries (text, thinking, tool output, tool arguments).
 *
 * The queue bounds how many events wait and the line bound how large a record is, but neither how
 * large one event is: 256 queued events of 512 KiB each is 128 MiB held for a consumer that
 * stalled. With this cap the same queue holds about 17 MiB (payload plus identifiers), a figure
 * worth being able to state. 64 KiB is more than a UI shows of one tool result.
 */
export const MAX_EVENT_BYTES = 64 * 1024;

/** Appended to anything drive shortened, so a cut value is never taken for what the agent wrote. */
export const TRUNCATION_MARK = '…(truncated)';

/**
 * The longest identifier drive accepts: a session id, a tool-call id, an approval id. Longer ones
 * are rejected (the event loses its correlation, visibly) rather than shortened (it would correlate
 * with nothing, silently). Descriptive labels under the same limit (a tool name, a model, a quota
 * status) are shortened and marked instead, since a shortened label still says something.
 *
 * Real ids are UUIDs of about 36 bytes; anything near 4 KiB is malformed, not merely long.
 */
export const MAX_IDENTIFIER_BYTES = 4 * 1024;

/**
 * How many tool calls may wait for their results at once. Entries leave as results arrive, so this
 * only bites on an agent that announces calls it never finishes.
 */
export const MAX_PENDING_TOOLS = 1024;

/**
 * The bytes the pending-tool map may hold. A count alone bounds nothing while each entry can be
 * 8 KiB of id and name: 1024 of those is 8 MiB. 256 KiB is room for thousands of real entries.
 */
export const MAX_PENDING_TOOL_BYTES = 256 * 1024;

/**
 * How many events wait for a slow consumer before drive stops reading the agent's stdout. The pipe
 * then fills and the agent blocks on its next write: a slow consumer slows the agent instead of
 * growing memory. 256 absorbs a burst of small deltas without stalling the agent on every one.
 */
export const EVENT_QUEUE_DEPTH = 256;

/**
 * How far the queue drains before reading resumes. Resuming at half rather than at depth - 1 keeps
 * a consumer that reads one event at a time from toggling the pipe on every event.
 */
export const EVENT_QUEUE_RESUME = EVENT_QUEUE_DEPTH / 2;

/** The longest sample of an unparsed line kept as evidence: enough to recognise a format, no more. */
export const MAX_UNPARSED_SAMPLE = 512;

/**
 * Approval requests waiting for an answer. Claude asks once per tool call and a turn's parallel
 * calls can ask together; more than 16 unanswered at once is an agent (or a caller) gone wrong, and
 * each entry keeps the tool's original arguments (up to a line) to echo back on approval, so the
 * count bounds about 8 MiB. Requests past it are denied on the caller's behalf.
 */
export const MAX_PENDING_APPROVALS = 16;

/**
 * Prompts this large go to the agent on stdin instead of the command line. Linux refuses any single
 * argument over 128 KiB (MAX_ARG_STRLEN), so a prompt that size as an argument fails to spawn.
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024;

/**
 * The whole command line drive will build. Prompts move to stdin, so only a system prompt or a
 * schema could reach this; past it the request is refused before spawning, with a message, rather
 * than failing inside `execve` with E2BIG.
 */
export const MAX_COMMAND_LINE_BYTES = 512 * 1024;

/**
 * How long an agent has between SIGTERM and SIGKILL when it is stopped. Two seconds lets Claude and
 * Codex flush their transcripts; a hung agent is not worth waiting on longer.
 */
export const KILL_GRACE_MS = 2000;

/**
 * How long a JSON-RPC agent (ACP) has to exit once its turn settled and its stdin was ended, before
 * its group is stopped as any other. Such an agent is a server: end of input is the only word it
 * gets that the run is over, and one that ignores it would otherwise keep the run open until its
 * timeout. Gemini CLI 0.61.0 exits well inside a second.
 */
export const SETTLED_EXIT_MS = 5000;

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Whether an identifier is within its bound. A yes or no, never a shortened value. */
export function usableId(value: string): boolean {
  return utf8(value) <= MAX_IDENTIFIER_BYTES;
}

/** The identifier when usable, otherwise null: the event keeps going without its correlation. */
export function acceptId(value: string | null): string | null {
  return value !== null && usableId(value) ? value : null;
}

/** The first `limit` bytes of `text`, cut on a character boundary so the result is valid UTF-8. */
export function headBytes(text: string, limit: number): string {
  // Without copying what fits: a UTF-16 unit is at most 3 bytes of UTF-8. An answer growing by
  // chunks is held to its bound on every chunk, and copying it whole each time made that quadratic.
  if (text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let cut = Math.max(0, limit);
  // A byte 10xxxxxx continues a character; back up to where one starts.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return bytes.toString('utf8', 0, cut);
}

function shorten(text: string, limit: number): string {
  if (utf8(text) <= limit) return text;
  return headBytes(text, limit - utf8(TRUNCATION_MARK)) + TRUNCATION_MARK;
}

/** Prose (text, thinking, tool output) cut to {@link MAX_EVENT_BYTES}, marked when cut. */
export const boundText = (text: string): string => shorten(text, MAX_EVENT_BYTES);

/** A descriptive label (tool name, model, status) cut to {@link MAX_IDENTIFIER_BYTES}, marked when cut. */
export const boundLabel = (text: string): string => shorten(text, MAX_IDENTIFIER_BYTES);

/** What replaces structured arguments too large to carry: cut JSON would no longer parse. */
export interface DroppedValue {
  truncated: true;
  originalBytes: number;
  note: string;
}

/** Structured arguments whole, or a small valid object saying they were dropped and how large they were. */
export function boundValue(value: unknown): unknown {
  const size = utf8(JSON.stringify(value) ?? 'null');
  if (size <= MAX_EVENT_BYTES) return value;
  const dropped: DroppedValue = {
    truncated: true,
    originalBytes: size,
    note: 'the arguments exceeded MAX_EVENT_BYTES and were dropped whole; cutting them would leave invalid JSON',
  };
  return dropped;
}

/**
 * A buffer that keeps the earliest {@link MAX_CAPTURE} bytes appended to it, line by line, and stays
 * valid UTF-8 when the last line had to be cut.
 */
export class Capture {
  private parts: string[] = [];
  private used = 0;
  private cut = false;

  /** Append `line` and a newline. False when the buffer was already full and took nothing. */
  appendLine(line: string): boolean {
    const room = MAX_CAPTURE - this.used;
    if (room <= 0) {
      this.cut = true;
      return false;
    }
    const size = utf8(line);
    // `<` because the newline has to fit as well.
    const kept = size < room ? line : headBytes(line, room - 1);
    if (kept !== line) this.cut = true;
    this.parts.push(kept, '\n');
    this.used += utf8(kept) + 1;
    return true;
  }

  /** Append raw text (stderr arrives in chunks that do not end on lines). */
  append(chunk: string): void {
    const room = MAX_CAPTURE - this.used;
    if (room <= 0) {
      this.cut = true;
      return;
    }
    const kept = headBytes(chunk, room);
    if (kept !== chunk) this.cut = true;
    this.parts.push(kept);
    this.used += utf8(kept);
  }

  get bytes(): number {
    return this.used;
  }

  /** Whether anything was dropped for lack of room. */
  get truncated(): boolean {
    return this.cut;
  }

  text(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join('')];
    return this.parts[0] ?? '';
  }
}
