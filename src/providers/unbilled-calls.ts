/**
 * Calls billed by the usage line that follows them. Kimi CLI writes a step's usage after the step's
 * calls, Grok Build a turn's after the turn's: the parser remembers the calls made since the last
 * usage line, hands them to the next one, and matches each call's result to its tool (`pending.ts`).
 * The two travel together in the parser's carried state, so a file read from an offset still bills a
 * step begun before it.
 *
 * Not here: what a call, a result or a usage line looks like (each provider's `record.ts`), nor what
 * is billed (its `parser.ts`).
 */
import { obj } from '../model/json.js';
import { carriedCalls, listOf, stringOf } from './carry.js';
import { type CarriedCall, PendingCalls } from './pending.js';

/**
 * Calls remembered for the step under way. A step that makes more is still billed, its list cut: a
 * real step makes a few, a wide fan-out some dozens.
 */
export const MAX_UNBILLED_CALLS = 256;

/** What a parser carries of its calls between passes. */
export interface CallsCarry {
  /** Calls made and not yet answered, to name the tool a result answers. */
  pending: CarriedCall<string>[];
  /** Calls made since the last usage line: the next one bills them. */
  unbilled: string[];
}

export const emptyCallsCarry = (): CallsCarry => ({ pending: [], unbilled: [] });

/** A `CallsCarry` as the index hands it back, checked (`carry.ts`), or undefined. */
export function readCallsCarry(stored: unknown): CallsCarry | undefined {
  const o = obj(stored);
  if (o === null) return undefined;
  const pending = carriedCalls(o.pending, stringOf);
  const unbilled = listOf(o.unbilled, stringOf);
  return pending === undefined || unbilled === undefined ? undefined : { pending, unbilled };
}

export class UnbilledCalls {
  private readonly pending: PendingCalls<string>;
  private unbilled: string[];

  constructor(carry: CallsCarry) {
    this.pending = new PendingCalls(carry.pending);
    this.unbilled = [...carry.unbilled];
  }

  carry(): CallsCarry {
    return { pending: this.pending.carry(), unbilled: [...this.unbilled] };
  }

  /** A call made: waiting for its result, and for the usage line that bills it. */
  open(id: string | null, name: string): void {
    if (id !== null) this.pending.open(id, name);
    if (this.unbilled.length < MAX_UNBILLED_CALLS) this.unbilled.push(name);
  }

  /** The tool a result answers, when its call is known. */
  settle(id: string | null): string | undefined {
    return id === null ? undefined : this.pending.settle(id);
  }

  /** The calls a usage line bills: those since the last one, which are then billed. */
  bill(): string[] {
    const billed = this.unbilled;
    this.unbilled = [];
    return billed;
  }
}
