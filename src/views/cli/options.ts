/**
 * The command line: flags shared by every one-shot output, parsed once, with errors a user can act on.
 * Node's own parser messages ("Option '--since <value>' argument missing") never reach a user: every
 * mistake is named here, with what was expected and an example of it.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Plan } from '../../model/document.js';
import { PROVIDERS, type ProviderId } from '../../model/facts.js';
import { LocalTime } from '../../model/time.js';
import { closest } from './typo.js';

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
  /** The flags that leave sessions out, as typed (`--harness gemini`), to say what matched nothing. */
  filters: string[];
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
    if (!id) throw new UsageError(`--harness ${name}: expected one of ${PROVIDERS.join(', ')}`);
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

/** What a date flag expects, with today as the example: a date the user can type as it is. */
export function dateFormat(time: LocalTime = new LocalTime()): string {
  return `YYYY-MM-DD, e.g. ${LocalTime.dayKey(time.dayNumber(Date.now()))}`;
}

/**
 * A `YYYY-MM-DD` or `YYYYMMDD` date as the start of that local day; `end` gives the start of the next.
 * A day the calendar does not have (2026-02-30, 2026-13-45) is refused, not carried into the next month.
 */
export function parseDay(flag: string, v: string | undefined, time: LocalTime, end: boolean): number | null {
  if (v === undefined) return null;
  const day = LocalTime.dayOf(v);
  if (day === null) throw new UsageError(`--${flag} ${v} is not a date (expected ${dateFormat(time)})`);
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
  const filters = FILTER_FLAGS.filter((f) => typeof values[f] === 'string').map(
    (f) => `${flagWord(f)} ${values[f]}`,
  );
  return {
    plan: parsePlan(values.plan as string | undefined),
    providers: parseProviders(values.provider as string | undefined),
    timeZone,
    sinceMs,
    untilMs,
    demo: values.demo === true,
    useIndex: values['no-cache'] !== true,
    threads: parseThreads(values.threads as string | undefined),
    filters,
  };
}

/** The common flags that leave sessions out (the others change how they are shown). */
const FILTER_FLAGS = ['provider', 'since', 'until'] as const;

export interface Parsed {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** What a flag's value should be, said when it is missing; flags not here get a pointer to the help. */
const EXPECTED: Record<string, () => string> = {
  since: () => `a date (${dateFormat()})`,
  until: () => `a date (${dateFormat()})`,
  plan: () => 'a plan: retail, max or included',
  provider: () => `harness names separated by commas (${PROVIDERS.join(', ')})`,
  timezone: () => 'a time zone name (e.g. Europe/Paris or UTC)',
  threads: () => 'a whole number from 1 to 256',
  delay: () => 'seconds (e.g. 2)',
  before: () => 'a turn number (the #SEQ chat prints)',
  agent: () => 'a subagent id (cctop report lists them)',
};

/**
 * Other spellings of a flag, each the name of the one it stands for. The harness is the word the
 * tables, `--by harness`, the config's budgets and the store use, so `--harness` is the flag's
 * name; `--provider` (its first name, and the word other tools use) is read as the same flag and is
 * what this cctop passes to another machine's, which may be older.
 */
const ALIASES: Record<string, string> = { harness: 'provider' };

/** `args` with each alias spelled as the flag it stands for, where `options` has that flag. */
function withAliases(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const end = args.indexOf('--');
  return args.map((a, i) => {
    // Everything after `--` is a positional, however it is spelled.
    if (end !== -1 && i > end) return a;
    const m = /^--([a-z-]+)(=.*)?$/.exec(a);
    const target = m ? ALIASES[m[1]!] : undefined;
    return m && target !== undefined && options[target] !== undefined && options[m[1]!] === undefined
      ? `--${target}${m[2] ?? ''}`
      : a;
  });
}

/** How a flag is named to the user (`--harness`, not its older spelling). */
export const flagWord = (name: string): string =>
  `--${Object.keys(ALIASES).find((alias) => ALIASES[alias] === name) ?? name}`;

/** Where a user reads the options of `command` (the bare `cctop` when null). */
export const helpOf = (command: string | null): string =>
  command === null ? 'cctop --help' : `cctop ${command} --help`;

/**
 * Parse `args` against `options`, refusing what they do not allow with a message of ours: an unknown
 * flag (and the known one it is closest to), a flag that needs a value and has none, a switch given
 * one. `command` names the help to point at.
 */
export function parse(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  command: string | null = null,
): Parsed {
  // Not strict: Node's strict mode throws its own sentences; each token is checked here instead.
  const { values, positionals, tokens } = parseArgs({
    args: withAliases(args, options),
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const spec = options[t.name];
    if (spec === undefined) {
      const names = Object.keys(options).map((n) => `--${n}`);
      const near = t.rawName.startsWith('--') ? closest(t.rawName, names) : null;
      throw new UsageError(
        `unknown option ${t.rawName}${near ? `, did you mean ${near}?` : ''} (try ${helpOf(command)})`,
      );
    }
    if (spec.type === 'string') {
      // `--since --list`: the next flag is not a value (no value of ours starts with a dash).
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-'))) {
        const expected = EXPECTED[t.name];
        throw new UsageError(
          expected
            ? `${t.rawName} needs ${expected()}`
            : `${t.rawName} needs a value (try ${helpOf(command)})`,
        );
      }
    } else if (t.value !== undefined) {
      throw new UsageError(`${t.rawName} takes no value (got ${args[t.index]})`);
    }
  }
  return { values, positionals } as Parsed;
}
