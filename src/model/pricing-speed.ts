/**
 * What a request served in fast mode costs: Anthropic serves some models faster at a multiple of the
 * standard price, every kind of token alike (input, output, cache reads and writes). The price
 * catalogue (`pricing.ts`) knows standard prices only, so the multiples are kept here, in one named
 * table, and `cost.ts` applies them to a request its ledger record marks fast (`FLAG.FAST`).
 *
 * A fast request on a model this table does not name has no price (it says so as "no price"): its
 * standard price would under-report it by the very multiple this table exists for.
 *
 * Not here: reading the speed (the Claude provider, `usage.speed`), or any per-token rate.
 */
import { catalogueModelName } from './pricing.js';

/**
 * The fast-mode multiple of each model family, from Anthropic's pricing page (fast mode: Opus 4.6
 * and 4.7 at six times the standard price, Opus 4.8 at twice). A family names every dated or
 * suffixed id that starts with it (`claude-opus-4-6-20260205`, `claude-opus-4-6[1m]`).
 */
export const FAST_MULTIPLIERS: readonly { family: string; multiplier: number }[] = [
  { family: 'claude-opus-4-6', multiplier: 6 },
  { family: 'claude-opus-4-7', multiplier: 6 },
  { family: 'claude-opus-4-8', multiplier: 2 },
];

/** Bytes that separate a family from what a cloud prefixes or suffixes it with. */
const BOUNDARY = /[-./:@]/;

/**
 * The multiple a fast request on `model` costs, or null when the table does not know the model. The
 * name is read as the catalogue reads it (case and a `[1m]` tag aside), with `.` and `@` spelled `-`
 * (`claude-opus-4.6`, Vertex's `claude-opus-4-6@20260205`), and a family may stand behind a cloud's
 * prefix (`anthropic.claude-opus-4-6-v1:0`, `us.anthropic.…`).
 */
export function fastMultiplier(model: string): number | null {
  const name = catalogueModelName(model).replace(/[.@]/g, '-');
  for (const { family, multiplier } of FAST_MULTIPLIERS) {
    let at = name.indexOf(family);
    while (at !== -1) {
      const before = at === 0 ? '' : name[at - 1]!;
      const after = name[at + family.length] ?? '';
      if ((before === '' || BOUNDARY.test(before)) && (after === '' || BOUNDARY.test(after)))
        return multiplier;
      at = name.indexOf(family, at + 1);
    }
  }
  return null;
}
