/**
 * Finding credentials in transcript text, so that none leaves cctop in full.
 *
 * The rules are secretlint's recommended preset (maintained by others, updated as providers change
 * their key formats), run here synchronously: each rule's `create` is handed a small context and its
 * `file` handler called with the text. secretlint's own engine (`lintSource`) returns a promise per
 * text and sets up an event emitter per call, and every place transcript text leaves cctop (a chat
 * line, an export, a search row) is synchronous; the rules themselves report synchronously, so
 * running them directly keeps their patterns without the engine. A rule whose handler is async (GCP's
 * `.p12` check reads a file by path) finds nothing here, as no path is given.
 *
 * Beside the preset, two rules of our own: a high-entropy value assigned to a secret-looking name
 * (`DB_PASSWORD=…`, `"api_key": "…"`), which catches `.env` lines for services the preset has no rule
 * for, and a JSON web token standing alone (a bearer token an agent printed or pasted).
 *
 * The preset is loaded on the first scan, not when this module is: every command that can read a
 * conversation imports this, and the preset (about 1 MB of modules, 50 ms to load) is needed only by
 * those that do. It is an ES module loaded with `require` so that a scan stays synchronous, which
 * Node does from 20.19 and 22.12; on an older Node the rules cannot load, and `redact` then shows
 * none of the text rather than all of it (`RulesUnavailable`).
 *
 * Not here: replacing what was found (`redact.ts`), or where the findings are kept (`list.ts`).
 */
import { createRequire } from 'node:module';
import { PRESET } from './rules.js';

export interface Found {
  /** UTF-16 offsets of the secret in the text scanned. */
  start: number;
  end: number;
  /** What it is, for a person: 'OpenAI key', 'AWS secret key'. */
  kind: string;
}

/** Our name for each rule of the preset; a rule added upstream later shows under its own slug. */
const KINDS: Record<string, string> = {
  aws: 'AWS key',
  gcp: 'GCP key',
  privatekey: 'private key',
  npm: 'npm token',
  basicauth: 'password in a URL',
  slack: 'Slack token',
  sendgrid: 'SendGrid key',
  shopify: 'Shopify token',
  github: 'GitHub token',
  openai: 'OpenAI key',
  anthropic: 'Anthropic key',
  linear: 'Linear key',
  '1password': '1Password token',
  'database-connection-string': 'database password',
};

/** The preset's message ids that say more than the rule's name. */
const MESSAGE_KINDS: Record<string, string> = {
  AWSSecretAccessKey: 'AWS secret key',
  AWSAccessKeyID: 'AWS access key id',
  AWSAccountID: 'AWS account id',
  IncomingWebhook: 'Slack webhook',
};

/** Options the preset's rules take: AWS's key ids are found only when asked (they name a key, and pair with one). */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

/** The preset's comment filter only suppresses reports (`secretlint-disable`); a transcript has none to honour. */
const SKIPPED = new Set(['@secretlint/secretlint-rule-filter-comments']);

interface Report {
  range: readonly [number, number] | number[];
  message: { messageId?: string; data?: Record<string, unknown> };
}

interface Handlers {
  file?: (source: { content: string; filePath: string; ext: string; contentType: 'text' }) => unknown;
}

interface RuleLike {
  meta: { id: string };
  messages: Record<string, unknown>;
  create: (context: unknown, options: unknown) => Handlers;
}

function readRange(r: Report['range']): [number, number] | null {
  const a = r[0];
  const b = r[1];
  return typeof a === 'number' && typeof b === 'number' && b > a ? [a, b] : null;
}

/** How far past a report's range its secret may start: the widest name-and-separator a rule matches before the value. */
const LOCATE_SLACK = 256;

/**
 * Where the secret a report names really is. A rule can report the start of its whole match (AWS's
 * secret key rule reports `aws_secret_access_key = "…` for the key's length, which would leave the
 * key's tail in view); its message data carries the value, so the range is moved onto that.
 */
function located(
  text: string,
  range: [number, number],
  data: Record<string, unknown> | undefined,
): [number, number] {
  if (data === undefined) return range;
  for (const v of Object.values(data)) {
    if (typeof v !== 'string' || v.length < 8) continue;
    const at = text.indexOf(v, range[0]);
    if (at >= 0 && at <= range[1] + LOCATE_SLACK) return [at, at + v.length];
  }
  return range;
}

function kindOf(ruleId: string, messageId: string | undefined): string {
  if (messageId !== undefined && MESSAGE_KINDS[messageId] !== undefined) return MESSAGE_KINDS[messageId];
  const slug = ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
  return KINDS[slug] ?? slug;
}

/**
 * A name that says its value is a secret. The value must be long and varied enough to be a key
 * rather than a word (`PASSWORD=changeme` is a placeholder; a 32-character random string is not).
 * The name's parts before and after the secret-looking word are bounded (64 characters each): with
 * no bound, every position of a long word (a base64 image, a minified bundle) would be tried against
 * the rest of the word, and a 70 KB word took seconds.
 */
const ASSIGNED =
  /([A-Za-z][A-Za-z0-9_.-]{0,64}?(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|private[_-]?key|access[_-]?key|auth[_-]?key|credential|client[_-]?secret)[A-Za-z0-9_]{0,64})["']?\s*[:=]\s*["']?([A-Za-z0-9+/=_\-.~!@#$%^&*]{16,512})/gi;

/** Bits per character below which a value reads as a word or a repeated pattern, not a key (a random base64 string has about 6, hex about 4). */
const MIN_ENTROPY_BITS = 3.5;

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function assigned(text: string, out: Found[]): void {
  for (const m of text.matchAll(ASSIGNED)) {
    const value = m[2];
    if (value === undefined || m.index === undefined) continue;
    if (entropy(value) < MIN_ENTROPY_BITS) continue;
    const end = m.index + m[0].length;
    out.push({ start: end - value.length, end, kind: 'secret assigned to a name' });
  }
}

/**
 * A JSON web token standing alone (`Authorization: Bearer eyJ…`), which the preset has no rule for:
 * three base64url parts, the first two JSON objects (`eyJ` is `{"`). A bearer token is a login.
 */
const JWT = /eyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,1024}/g;

/** Whether a JWT's first part decodes to a header naming its algorithm, as every real one does. */
function jwtHeader(part: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof Reflect.get(header, 'alg') === 'string';
  } catch {
    // Not JSON: three dotted parts that only look like a token.
    return false;
  }
}

function jwts(text: string, out: Found[]): void {
  for (const m of text.matchAll(JWT)) {
    if (m.index === undefined || !jwtHeader(m[0].slice(0, m[0].indexOf('.')))) continue;
    out.push({ start: m.index, end: m.index + m[0].length, kind: 'JSON web token' });
  }
}

/** The preset could not be loaded: nothing can be said to be free of secrets. */
export class RulesUnavailable extends Error {}

function readRule(r: unknown): RuleLike | null {
  if (typeof r !== 'object' || r === null) return null;
  const meta: unknown = Reflect.get(r, 'meta');
  const create: unknown = Reflect.get(r, 'create');
  const id: unknown = typeof meta === 'object' && meta !== null ? Reflect.get(meta, 'id') : undefined;
  if (typeof id !== 'string' || typeof create !== 'function') return null;
  return {
    meta: { id },
    messages: {},
    create: (context, options) => {
      const h: unknown = create.call(r, context, options);
      const file: unknown = typeof h === 'object' && h !== null ? Reflect.get(h, 'file') : undefined;
      return typeof file === 'function' ? { file: (source) => file.call(h, source) } : {};
    },
  };
}

/** The preset's rules as its module exports them. */
function loadPreset(): RuleLike[] {
  let m: unknown;
  try {
    m = createRequire(import.meta.url)(PRESET);
  } catch (err) {
    throw new RulesUnavailable(
      `secretlint's rules could not be loaded (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); cctop needs Node 20.19 or 22.12 or later to load them`,
    );
  }
  const creator: unknown = typeof m === 'object' && m !== null ? Reflect.get(m, 'creator') : undefined;
  const rules: unknown =
    typeof creator === 'object' && creator !== null ? Reflect.get(creator, 'rules') : undefined;
  if (!Array.isArray(rules)) throw new RulesUnavailable(`${PRESET} exports no rules`);
  return rules.map(readRule).filter((r): r is RuleLike => r !== null);
}

/** The preset's rules, each created once; a report lands in whatever list `sink` is at the time. */
function presetRules(): { run: (text: string, out: Found[]) => void } {
  const created: { id: string; file: NonNullable<Handlers['file']> }[] = [];
  let sink: Found[] = [];
  let text = '';
  for (const rule of loadPreset()) {
    const id = rule.meta.id;
    if (SKIPPED.has(id)) continue;
    const context = {
      sharedOptions: {},
      createTranslator: () => (messageId: string, data?: Record<string, unknown>) => ({
        messageId,
        message: messageId,
        data,
      }),
      report: (d: Report) => {
        const range = readRange(d.range);
        if (range === null) return;
        const [start, end] = located(text, range, d.message.data);
        sink.push({ start, end, kind: kindOf(id, d.message.messageId) });
      },
      ignore: () => {},
    };
    const handlers = rule.create(context, RULE_OPTIONS[id] ?? {});
    if (handlers.file !== undefined) created.push({ id, file: handlers.file });
  }
  return {
    run: (scanned, out) => {
      sink = out;
      text = scanned;
      for (const c of created) {
        const done = c.file({ content: text, filePath: '', ext: '', contentType: 'text' });
        // A promise is a rule that reads a file by path (GCP's .p12 check); with no path it finds nothing.
        if (done instanceof Promise) done.catch(() => {});
      }
      sink = [];
      text = '';
    },
  };
}

/**
 * A private key whose end was cut off (a tool result is kept to its head): the preset's rule needs
 * the END line, so without this the key's first lines would show. Redacted from its BEGIN line on.
 */
const KEY_HEAD = /-----BEGIN[ A-Z0-9]{0,24}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END[ A-Z0-9]{0,24}PRIVATE KEY(?: BLOCK)?-----/;

function cutKeys(text: string, out: Found[]): void {
  for (const m of text.matchAll(KEY_HEAD)) {
    if (m.index === undefined) continue;
    if (KEY_END.test(text.slice(m.index))) continue;
    out.push({ start: m.index, end: text.length, kind: 'private key' });
    return;
  }
}

let preset: ReturnType<typeof presetRules> | null = null;

/** Why the rules cannot load, or null when they do (`cctop doctor`). */
export function rulesProblem(): string | null {
  try {
    preset ??= presetRules();
    return null;
  } catch (err) {
    if (err instanceof RulesUnavailable) return err.message;
    throw err;
  }
}

/**
 * Every credential in `text`, in order (throws `RulesUnavailable` when the preset cannot load), overlaps merged (a database URL is also a password in a
 * URL: the wider one wins, under the preset's name for it).
 */
export function findSecrets(text: string): Found[] {
  if (text.length < 16) return [];
  preset ??= presetRules();
  const raw: Found[] = [];
  preset.run(text, raw);
  assigned(text, raw);
  if (text.includes('eyJ')) jwts(text, raw);
  if (text.includes('PRIVATE KEY')) cutKeys(text, raw);
  if (raw.length === 0) return raw;
  raw.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Found[] = [];
  for (const f of raw) {
    const last = out[out.length - 1];
    if (last !== undefined && f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
      continue;
    }
    out.push({ ...f });
  }
  return out;
}
