/**
 * A message's `usage` object, read off the bytes into `ClaudeUsage`, equal to `readUsage` of the
 * parsed object. The walk offers each usage object here as it passes it (`walkUsage`), so the one the
 * projection reads (`usageAt`) is not walked a second time.
 *
 * Not here: which usage a line keeps (the projection decides: its message's, when an assistant's),
 * nor the rare `iterations`, whose advisors' usages are parsed and read by `readUsage` itself.
 */
import { type JsonObject, obj } from '../../model/json.js';
import { has, IS, Keys, kind, members, value } from '../skim.js';
import { count, is, objectAt, span } from './bytes-spans.js';
import { type ClaudeLine, type ClaudeUsage, readUsage } from './record.js';

const USAGE = new Keys([
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'cache_creation',
  'output_tokens_details',
  'iterations',
  'speed',
]);
const U = { input: 0, output: 1, read: 2, write: 3, split: 4, details: 5, iterations: 6, speed: 7 } as const;
/** The one `speed` that changes the price; any other word (`standard`) is the standard price. */
const FAST = Buffer.from('fast');
const ONE_HOUR = new Keys(['ephemeral_1h_input_tokens']);
const THINKING = new Keys(['thinking_tokens']);

// Scratch, reused message after message (the extractor is not re-entrant, nor needs to be).
const use = new Int32Array(USAGE.names.length * 2);
const one = new Int32Array(2);

/** Where the usage object whose members `use` holds starts, or -1. */
let usageWalkedAt = -1;

/** A new message is being walked: the usage noted for the last one is not its own. */
export function forgetUsage(): void {
  usageWalkedAt = -1;
}

/**
 * A message's `usage` is read where it stands rather than skipped and walked again later. One the
 * member walk rejects makes the line bad, as skipping it would: the walk holds every value it passes,
 * read or skipped, to JSON's grammar.
 */
export function walkUsage(b: Buffer, us: number, end: number): number {
  if (kind(b, us) !== IS.OBJECT) return -1;
  const after = members(b, us, end, USAGE, use);
  usageWalkedAt = us;
  return after;
}

/** `readUsage` of the usage object, read off the bytes (its rare `iterations` are parsed). */
export function usageAt(b: Buffer, s: number, e: number, line: ClaudeLine): ClaudeUsage | null {
  if (s !== usageWalkedAt) members(b, s, e, USAGE, use);
  const input = count(b, use, U.input);
  const output = count(b, use, U.output);
  let usage: ClaudeUsage | null = null;
  if (input !== null || output !== null) {
    const write = count(b, use, U.write) ?? 0;
    let oneHour = 0;
    const split = objectAt(b, use, U.split);
    if (split) {
      members(b, split[0], split[1], ONE_HOUR, one);
      oneHour = count(b, one, 0) ?? 0;
    }
    let reasoning: number | null = null;
    const details = objectAt(b, use, U.details);
    if (details) {
      members(b, details[0], details[1], THINKING, one);
      reasoning = count(b, one, 0);
    }
    usage = {
      input: input ?? 0,
      output: output ?? 0,
      cacheRead: count(b, use, U.read) ?? 0,
      cacheWrite: write,
      cacheWrite1h: Math.min(oneHour, write),
      reasoning,
      fast: is(b, use, U.speed, FAST),
    };
  }
  if (has(use, U.iterations) && kind(b, use[2 * U.iterations]!) === IS.ARRAY) {
    for (const it of value(b, ...span(use, U.iterations)) as unknown[]) {
      const i = obj(it);
      const model = i && typeof i.model === 'string' && i.model.length > 0 ? i.model : null;
      const adv = i && i.type === 'advisor_message' ? readUsage(i as JsonObject) : null;
      if (model && adv) line.advisors.push({ model, usage: adv });
    }
  }
  return usage;
}
