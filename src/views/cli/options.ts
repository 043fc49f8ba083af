/**
 * The command line: flags shared by every one-shot output, parsed once, with errors a user can act on.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Plan } from '../../model/document.js';
import { PROVIDERS, type ProviderId } from '../../model/facts.js';
import { LocalTime } from '../../model/time.js';

export class UsageError extends Error {}

export interface CommonOptions {
  plan: Plan;
  providers: ProviderId[] | null;
  timeZone: string | undefined;
  sinceMs: number | null;
  untilMs: number | null;
  demo: boolean;
  /** false for `--no-cache`. */
  useIndex: boolean;
  /** `--threads N`, or undefined for one per core. */
  threads: number | undefined;
}

const PLAN_ALIASES: Record<string, Plan> = {
  retail: 'retail',
  default: 'retail',
  max: 'max',
  'claude-max': 'max',
  included: 'included',
  enterprise: 'included',
  'not-billed': 'included',
};

export const COMMON_FLAGS = {
  plan: { type: 'string', short: 'p' },
  provider: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  timezone: { type: 'string' },
  demo: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  threads: { type: 'string' },
} as const;

export function parsePlan(v: string | undefined): Plan {
  if (v === undefined) return 'retail';
  const plan = PLAN_ALIASES[v.toLowerCase()];
  if (!plan) throw new UsageError(`--plan ${v}: expected retail, max or included`);
  return plan;
}

export function parseProviders(v: string | undefined): ProviderId[] | null {
  if (v === undefined) return null;
  const out: ProviderId[] = [];
  for (const name of v.split(',').map((s) => s.trim().toLowerCase())) {
    const id = PROVIDERS.find((p) => p === name);
    if (!id) throw new UsageError(`--provider ${name}: expected one of ${PROVIDERS.join(', ')}`);
    out.push(id);
  }
  return out;
}

export function parseTimeZone(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    new LocalTime(v);
  } catch {
    throw new UsageError(`--timezone ${v}: not a time zone name (try Europe/Paris or UTC)`);
  }
  return v;
}

/** A `YYYY-MM-DD` or `YYYYMMDD` date as the start of that local day; `end` gives the start of the next. */
export function parseDay(flag: string, v: string | undefined, time: LocalTime, end: boolean): number | null {
  if (v === undefined) return null;
  const day = LocalTime.dayOf(v);
  if (day === null) throw new UsageError(`--${flag} ${v}: expected a date such as 2026-11-29`);
  return time.dayStartMs(end ? day + 1 : day);
}

export function parseThreads(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new UsageError(`--threads ${v}: expected a whole number from 1 to 256`);
  return n;
}

export function commonOptions(values: Record<string, unknown>): CommonOptions {
  const timeZone = parseTimeZone(values.timezone as string | undefined);
  const time = new LocalTime(timeZone);
  const sinceMs = parseDay('since', values.since as string | undefined, time, false);
  const untilMs = parseDay('until', values.until as string | undefined, time, true);
  if (sinceMs !== null && untilMs !== null && untilMs <= sinceMs)
    throw new UsageError('--until is before --since');
  return {
    plan: parsePlan(values.plan as string | undefined),
    providers: parseProviders(values.provider as string | undefined),
    timeZone,
    sinceMs,
    untilMs,
    demo: values.demo === true,
    useIndex: values['no-cache'] !== true,
    threads: parseThreads(values.threads as string | undefined),
  };
}

export interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>): Parsed {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as Parsed;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
