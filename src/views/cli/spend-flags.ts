/**
 * The flags of the spend reports (`daily`, `weekly`, `monthly`, `blocks`, `spend`), apart from their
 * code so that parsing a command line loads none of it.
 */
export const SPEND_FLAGS = {
  json: { type: 'boolean', short: 'j' },
  by: { type: 'string' },
  breakdown: { type: 'boolean', short: 'b' },
  order: { type: 'string' },
  'start-of-week': { type: 'string' },
  compact: { type: 'boolean' },
  'token-limit': { type: 'string' },
  active: { type: 'boolean' },
  period: { type: 'string' },
  /** `blocks --json --hours`: each UTC hour's requests, what `--host` asks other machines for. */
  hours: { type: 'boolean' },
} as const;
