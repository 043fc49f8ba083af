/**
 * The tool calls of one transcript that are still waiting for their result, by call id, oldest
 * first: a parser opens a call when the harness names it and settles it when its result arrives, so
 * the result can be charged to the call's tool (a failure is counted under the tool's name). The
 * calls travel in the parser's carried state, so a transcript read from a byte offset still matches
 * a result to a call made before that offset.
 *
 * Every parser that matches results to calls uses this one map, with its one bound. What it does not
 * do: count calls (that is `tallyTool`), decide what a result means, or remember calls already
 * settled (a harness that names a call twice keeps its own list of those).
 */

/**
 * Calls remembered without a result. A call the harness never answers (a crash, a killed run, a
 * call the transcript simply drops) would otherwise stay forever, and a file is untrusted input that
 * may name millions. An agent runs a handful of calls at once, a few dozen in a wide fan-out; a
 * thousand is far past any real turn and keeps the carried state under about 100 KiB (a call id is
 * some 40 bytes, a tool name rarely more). known limit: past it the oldest call is forgotten, and a
 * result that still arrives for it counts as a result for no known call.
 */
export const MAX_PENDING_TOOLS = 1024;

/** A call as carried between passes: its id and its tool's name. */
export type CarriedCall<Id> = [id: Id, tool: string];

export class PendingCalls<Id extends string | number> {
  private readonly calls: Map<Id, string>;

  /** @param carried the calls a previous pass left open, oldest first (from `carry()`). */
  constructor(carried: readonly CarriedCall<Id>[] = []) {
    this.calls = new Map(carried);
  }

  get size(): number {
    return this.calls.size;
  }

  has(id: Id): boolean {
    return this.calls.has(id);
  }

  /**
   * A call was made. Naming an open call again renames it and keeps its place in the order; past
   * `MAX_PENDING_TOOLS` the oldest open call is forgotten.
   */
  open(id: Id, tool: string): void {
    this.calls.set(id, tool);
    if (this.calls.size > MAX_PENDING_TOOLS) {
      const oldest = this.calls.keys().next();
      if (!oldest.done) this.calls.delete(oldest.value);
    }
  }

  /** A result arrived: the tool of the call it answers, which is no longer open; undefined if unknown. */
  settle(id: Id): string | undefined {
    const tool = this.calls.get(id);
    if (tool !== undefined) this.calls.delete(id);
    return tool;
  }

  /** The tool of the newest open call: what a working session is probably waiting on. */
  newest(): string | null {
    let tool: string | null = null;
    for (const t of this.calls.values()) tool = t;
    return tool;
  }

  /** The open calls, oldest first, as plain JSON for the next pass. */
  carry(): CarriedCall<Id>[] {
    return [...this.calls];
  }
}
