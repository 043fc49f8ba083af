/**
 * One table cctop owns in an agent's TOML config (`[mcp_servers.cctop]` in Codex's `config.toml`),
 * put in and taken out as text: `install` appends the table at the end of the file, set apart by a
 * blank line as Codex's own `codex mcp add` does; `remove` takes out exactly that (its subtables too,
 * `[mcp_servers.cctop.env]`), so the file comes back byte for byte. Comments, order and every other
 * key stay.
 *
 * The rules are `json-member.ts`'s: cctop's table is known by the entry's rule or as recorded writing
 * it; one pointing at another cctop has its values replaced in place (keys the user added stay);
 * someone else's is left alone and reported. The result is parsed with `smol-toml` and compared with
 * what was meant before anything is written; a file that is not TOML, or a table cctop cannot find as
 * a `[header]` of its own (written inline, or through dotted keys), is refused and nothing written.
 *
 * Not here: where the file is or what the table holds (`mcp/install.ts`); the text scanner
 * (`toml-text.ts`).
 */
import { parse, TomlError } from 'smol-toml';
import { arr, type JsonObject, obj } from '../model/json.js';
import type { Done, EntryStatus, InstallOutcome, RemoveOutcome, Target } from './apply.js';
import { commitEdit, type Plan } from './commit.js';
import { type Entry, sameValue, valueAt, withoutValueAt, withValueAt } from './entry.js';
import { InstallError, readSettingsRaw, type SettingsText } from './settings-file.js';
import { entryKey, type Installed, readSidecar, type Sidecar } from './sidecar.js';
import { type Section, tomlSections, tomlStrings } from './toml-text.js';

/** A TOML file: where, and how messages name it. */
export type TomlTarget = Pick<Target, 'path' | 'label'>;

/** The file's text parsed; refused (`InstallError`) when it is not TOML. */
export function readToml(file: SettingsText): JsonObject {
  if (file.text === null) return {};
  try {
    return parse(file.text) as JsonObject;
  } catch (err) {
    const where = err instanceof TomlError ? `:${err.line}:${err.column}` : '';
    const why = (err as Error).message.split('\n')[0];
    throw new InstallError(
      `${file.path}${where}: not valid TOML (${why}); fix it or move it aside, nothing was changed`,
    );
  }
}

/** Values as JSON would say them (dates as their text), to compare two parses. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

/** A key as TOML writes it: bare when it can be, else quoted. */
const tomlKey = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

/** A value cctop writes: a string, a list of strings, a number or a boolean. */
function tomlValue(v: unknown): string {
  if (typeof v === 'string') return tomlStrings([v]).slice(1, -1);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const list = arr(v);
  if (list?.every((x) => typeof x === 'string')) return tomlStrings(list as string[]);
  throw new Error(`cctop writes no TOML for ${JSON.stringify(v)}`);
}

/** The table's text: its header and one line per key. */
function tableText(path: readonly string[], value: JsonObject, eol: string): string {
  const lines = [`[${path.map(tomlKey).join('.')}]`];
  for (const [k, v] of Object.entries(value)) lines.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  return lines.map((l) => l + eol).join('');
}

const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

const samePath = (header: readonly string[] | null, path: readonly string[]): boolean =>
  header !== null && header.length === path.length && header.every((p, i) => p === path[i]);

/** The sections holding the table: its own `[header]` and its subtables'. */
function tableSections(text: string, path: readonly string[]): { own: Section | null; all: Section[] } {
  const { sections } = tomlSections(text);
  const all = sections.filter(
    (s) =>
      s.header !== null &&
      !s.array &&
      s.header.length >= path.length &&
      samePath(s.header.slice(0, path.length), path),
  );
  return { own: all.find((s) => samePath(s.header, path)) ?? null, all };
}

/** The document without the entry, tables left empty by it taken away: what must not change. */
const without = (doc: JsonObject, path: readonly string[]): unknown =>
  plain(withoutValueAt(plain(doc) as JsonObject, path, path.length - 1));

function unsafe(target: TomlTarget, entry: Entry): never {
  throw new InstallError(
    `${target.path}: cctop could not edit [${entry.path.join('.')}] without changing something else in the file; nothing was changed (please report this, with the file's layout)`,
  );
}

/** Refused unless `text` parses, holds `expected` at the entry's place, and nothing else changed. */
function check(target: TomlTarget, entry: Entry, before: JsonObject, text: string, expected: unknown): void {
  let after: JsonObject;
  try {
    after = parse(text) as JsonObject;
  } catch {
    unsafe(target, entry);
  }
  const at = valueAt(plain(after) as JsonObject, entry.path);
  if (
    !sameValue(at ?? null, plain(expected)) ||
    !sameValue(without(after, entry.path), without(before, entry.path))
  )
    unsafe(target, entry);
}

function ours(entry: Entry, found: unknown, sidecar: Sidecar): boolean {
  const kept = sidecar[entryKey(entry.path)];
  const value = plain(found);
  return entry.isOurs(value) || (kept !== undefined && sameValue(kept.wrote, value));
}

/** Put cctop's table in, or point it at this cctop; leaves someone else's alone. */
export function installTable(target: TomlTarget, entry: Entry): Done<InstallOutcome> {
  let outcome: InstallOutcome = { kind: 'unchanged' };
  const done = commitEdit(
    () => readSettingsRaw(target.path),
    (file, sidecar) => {
      const p = planInstall(target, entry, file, sidecar);
      outcome = p.outcome;
      return p.plan;
    },
  );
  return { outcome, wrote: done.wrote ? target.path : null, backup: done.backup };
}

function planInstall(
  target: TomlTarget,
  entry: Entry,
  file: SettingsText,
  sidecar: Sidecar,
): { outcome: InstallOutcome; plan: Plan } {
  const doc = readToml(file);
  const key = entryKey(entry.path);
  const found = valueAt(doc, entry.path);
  const text = file.text ?? '';
  const eol = eolOf(text);
  const none: Plan = { kind: 'none', sidecar: null };
  if (found !== undefined) {
    if (!ours(entry, found, sidecar))
      return { outcome: { kind: 'foreign', found: plain(found) }, plan: none };
    const next = obj(entry.repoint(plain(found))) ?? {};
    if (sameValue(next, plain(found))) return { outcome: { kind: 'unchanged' }, plan: none };
    const { own } = tableSections(text, entry.path);
    if (own === null)
      throw new InstallError(
        `${target.path}: ${entry.path.join('.')} is not written as a [${entry.path.join('.')}] table, so cctop cannot repoint it; change it by hand, or remove it and run this again`,
      );
    let out = text;
    // From the end back, so that the offsets before each edit still hold.
    const changes = Object.entries(next).filter(([k, v]) => !sameValue(v, plain(obj(found)?.[k])));
    const edits: { at: number; end: number; text: string }[] = [];
    for (const [k, v] of changes) {
      const s = own.statements.find((st) => st.key === k);
      const lastEnd = own.statements.at(-1)?.lineEnd ?? own.start;
      if (s !== undefined) edits.push({ at: s.valueStart, end: s.valueEnd, text: tomlValue(v) });
      else edits.push({ at: lastEnd, end: lastEnd, text: `${tomlKey(k)} = ${tomlValue(v)}${eol}` });
    }
    edits.sort((a, b) => b.at - a.at);
    for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.end);
    check(target, entry, doc, out, next);
    const record: Installed = { ...(sidecar[key] ?? { made: 0 }), wrote: next };
    return {
      outcome: { kind: 'repointed', from: plain(found) },
      plan: { kind: 'write', text: out, sidecar: { ...sidecar, [key]: record } },
    };
  }
  const want = obj(entry.want) ?? {};
  if (withValueAt(plain(doc) as JsonObject, entry.path, want) === null)
    throw new InstallError(
      `${target.path}: ${entry.path.slice(0, -1).join('.')} is not a table, so cctop cannot add its ${entry.label} there; nothing was changed`,
    );
  // Set apart by a blank line; a last line without its newline gets one first.
  const sep = text === '' ? '' : text.endsWith('\n') ? eol : eol + eol;
  const out = text + sep + tableText(entry.path, want, eol);
  check(target, entry, doc, out, want);
  const record: Installed = { wrote: want, made: file.text === null ? 1 : 0, before: sep };
  return {
    outcome: { kind: 'added' },
    plan: { kind: 'write', text: out, sidecar: { ...sidecar, [key]: record } },
  };
}

/** Take cctop's table out (and its subtables), the file as it was before; leaves someone else's alone. */
export function removeTable(target: TomlTarget, entry: Entry): Done<RemoveOutcome> {
  let outcome: RemoveOutcome = { kind: 'absent' };
  const done = commitEdit(
    () => readSettingsRaw(target.path),
    (file, sidecar) => {
      const p = planRemove(target, entry, file, sidecar);
      outcome = p.outcome;
      return p.plan;
    },
  );
  return { outcome, wrote: done.wrote ? target.path : null, backup: done.backup };
}

function planRemove(
  target: TomlTarget,
  entry: Entry,
  file: SettingsText,
  sidecar: Sidecar,
): { outcome: RemoveOutcome; plan: Plan } {
  const key = entryKey(entry.path);
  const kept = sidecar[key];
  const rest = { ...sidecar };
  delete rest[key];
  const doc = readToml(file);
  const found = valueAt(doc, entry.path);
  if (found === undefined)
    return { outcome: { kind: 'absent' }, plan: { kind: 'none', sidecar: kept === undefined ? null : rest } };
  if (!ours(entry, found, sidecar))
    return { outcome: { kind: 'foreign', found: plain(found) }, plan: { kind: 'none', sidecar: null } };
  const text = file.text ?? '';
  const { own, all } = tableSections(text, entry.path);
  if (own === null)
    throw new InstallError(
      `${target.path}: ${entry.path.join('.')} is not written as a [${entry.path.join('.')}] table, so cctop cannot take it out; remove it by hand`,
    );
  // Each run of the table's sections, up to its last statement: comments and blank lines after it
  // belong to what follows. The table's own section takes the blank line install set it apart by.
  const spans: { from: number; to: number; next: number }[] = [];
  for (const s of all) {
    const to = s.statements.at(-1)?.lineEnd ?? headerEnd(text, s);
    const joined = spans.at(-1);
    if (joined !== undefined && joined.next === s.start) Object.assign(joined, { to, next: s.end });
    else {
      const sep = s === own ? (kept?.before ?? '') : '';
      const from =
        sep !== '' && text.slice(s.start - sep.length, s.start) === sep ? s.start - sep.length : s.start;
      spans.push({ from, to, next: s.end });
    }
  }
  let out = text;
  for (const span of spans.reverse()) out = out.slice(0, span.from) + out.slice(span.to);
  const expected = without(doc, entry.path);
  check(target, entry, doc, out, null);
  const outcome: RemoveOutcome = { kind: 'removed', restored: null };
  if (kept?.made === 1 && out.trim() === '' && sameValue(expected, {}))
    return { outcome, plan: { kind: 'delete', sidecar: rest } };
  return { outcome, plan: { kind: 'write', text: out, sidecar: rest } };
}

/** Just past a section's header line. */
function headerEnd(text: string, s: Section): number {
  const nl = text.indexOf('\n', s.start);
  return nl === -1 || nl >= s.end ? s.end : nl + 1;
}

/** How cctop's table stands, read only; a file that is not TOML is refused (`InstallError`). */
export function tableStatus(target: TomlTarget, entry: Entry): EntryStatus {
  const file = readSettingsRaw(target.path);
  const found = valueAt(readToml(file), entry.path);
  if (found === undefined) return { kind: 'absent' };
  const value = plain(found);
  if (!ours(entry, value, readSidecar(file.real))) return { kind: 'foreign', found: value };
  return { kind: 'ours', found: value, current: sameValue(entry.repoint(value), value), displaced: null };
}
