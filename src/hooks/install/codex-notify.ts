/**
 * cctop's entry in Codex's `notify` (a top-level key of `$CODEX_HOME/config.toml`): the program
 * Codex runs at the end of every turn, with the JSON notification as its last argument.
 *
 * Codex runs one program. When the user already has one, cctop's entry runs it after itself:
 * `notify = [<cctop…>, "hook", "codex", "notify", "--then", <theirs…>]` (`hooks/run.ts` runs the part
 * after `--then` with the same last argument). `remove` gives their entry back exactly as they wrote
 * it, spelling and layout included (the text is kept in the record beside config.toml).
 *
 * The file is edited as text: only the `notify` value (or one line for it, after the last top-level
 * key and before the first table) changes; comments, order and every other key stay. The result is
 * parsed with `smol-toml` and compared with the file before: anything changed besides `notify` and
 * nothing is written.
 *
 * Not here: Codex's hooks file (`json-hooks.ts`, for `hooks.json`).
 */
import { parse } from 'smol-toml';
import { commitEdit, type Plan } from '../../install/commit.js';
import { InstallError, readSettingsRaw, type SettingsText } from '../../install/settings-file.js';
import { readSidecar, type Sidecar } from '../../install/sidecar.js';
import { readToml } from '../../install/toml-table.js';
import { type Statement, tomlStrings, topLevel } from '../../install/toml-text.js';
import { arr, type JsonObject } from '../../model/json.js';
import { hookArgv, missingPrograms, readHookArgv } from './command.js';
import { sameValue } from './json-hook-list.js';
import { emptyDone, emptyStatus, type PartDone, type PartStatus } from './types.js';

/** The key, the event cctop's entry runs as, and the flag before the user's own program. */
const NOTIFY = 'notify';
const THEN = '--then';

/** How messages name the file. */
const LABEL = 'Codex config';

/** The record's key for the entry (`install/sidecar.ts`). */
const ENTRY = 'notify';

/** What `notify` holds, read. */
type Found = { kind: 'absent' } | { kind: 'ours'; chained: string[] } | { kind: 'foreign'; argv: string[] };

function notifyOf(doc: JsonObject, path: string): string[] | null {
  if (!Object.hasOwn(doc, NOTIFY)) return null;
  const list = arr(doc[NOTIFY]);
  if (list === null || !list.every((w) => typeof w === 'string'))
    throw new InstallError(
      `${path}: notify is not a list of strings, so cctop cannot chain to it; nothing was changed`,
    );
  return list as string[];
}

function found(argv: string[] | null, program: readonly string[], side: Sidecar): Found {
  if (argv === null) return { kind: 'absent' };
  const read = readHookArgv(argv, program);
  const recorded = side[ENTRY] !== undefined && sameValue(side[ENTRY].wrote, argv);
  if ((read !== null && read.agent === 'codex' && read.event === NOTIFY) || recorded) {
    const at = argv.indexOf(THEN);
    return { kind: 'ours', chained: at === -1 ? [] : argv.slice(at + 1) };
  }
  return { kind: 'foreign', argv };
}

/** cctop's `notify`, running `then` after itself. */
function want(program: readonly string[], then: readonly string[]): string[] {
  const base = hookArgv(program, 'codex', NOTIFY);
  return then.length > 0 ? [...base, THEN, ...then] : base;
}

const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

function statementOf(text: string): Statement | undefined {
  return topLevel(text).statements.find((s) => s.key === NOTIFY);
}

/** `text` with a `notify` line added after the last top-level key (else at the top). */
function insertNotify(text: string, value: string): string {
  const line = `${NOTIFY} = ${value}`;
  const eol = eolOf(text);
  const at = topLevel(text).statements.at(-1)?.lineEnd ?? 0;
  // A file whose last line has no newline gets one before cctop's line, and keeps having none after.
  if (at === text.length && text.length > 0 && !text.endsWith('\n')) return `${text}${eol}${line}`;
  return text.slice(0, at) + line + eol + text.slice(at);
}

/** `text` without the `notify` statement: the exact inverse of `insertNotify`. */
function deleteNotify(text: string, s: Statement): string {
  const atEnd = s.lineEnd === text.length && !text.endsWith('\n');
  if (atEnd && s.start > 0) {
    const eol = text.slice(0, s.start).endsWith('\r\n') ? 2 : 1;
    return text.slice(0, s.start - eol);
  }
  return text.slice(0, s.start) + text.slice(s.lineEnd);
}

const replaceValue = (text: string, s: Statement, value: string): string =>
  text.slice(0, s.valueStart) + value + text.slice(s.valueEnd);

/** Values as JSON would say them (dates as their text), to compare two parses. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

/** Refused unless `text` parses, `notify` is `expected`, and everything else is as in `before`. */
function check(path: string, before: JsonObject, text: string, expected: string[] | null): void {
  let after: JsonObject;
  try {
    after = parse(text) as JsonObject;
  } catch {
    unsafe(path);
  }
  const rest = (d: JsonObject) => {
    const o = { ...d };
    delete o[NOTIFY];
    return plain(o);
  };
  const notify = Object.hasOwn(after, NOTIFY) ? plain(after[NOTIFY]) : null;
  if (!sameValue(notify, expected) || !sameValue(rest(after), rest(before))) unsafe(path);
}

function unsafe(path: string): never {
  throw new InstallError(
    `${path}: cctop could not edit notify without changing something else in the file; nothing was changed (please report this, with the file's layout)`,
  );
}

function commit(
  path: string,
  plan: (file: SettingsText, doc: JsonObject, side: Sidecar, done: PartDone) => Plan,
): PartDone {
  let done = emptyDone(path, LABEL);
  const committed = commitEdit(
    () => readSettingsRaw(path),
    (file, side) => {
      done = emptyDone(path, LABEL);
      return plan(file, readToml(file), side, done);
    },
  );
  return { ...done, ...committed };
}

/** Make `notify` run cctop (then the user's own program, when there was one). */
export function installCodexNotify(path: string, program: readonly string[]): PartDone {
  return commit(path, (file, doc, side, done) => {
    const text = file.text ?? '';
    const f = found(notifyOf(doc, path), program, side);
    const s = statementOf(text);
    let next: string[];
    let out: string;
    const record = { ...side };
    if (f.kind === 'ours') {
      next = want(program, f.chained);
      if (s === undefined || sameValue(notifyOf(doc, path), next)) return { kind: 'none', sidecar: null };
      out = replaceValue(text, s, tomlStrings(next));
      record[ENTRY] = { ...(side[ENTRY] ?? { made: 0 }), wrote: next };
      done.repointed.push(NOTIFY);
    } else if (f.kind === 'foreign') {
      if (s === undefined) return unsafe(path);
      next = want(program, f.argv);
      out = replaceValue(text, s, tomlStrings(next));
      record[ENTRY] = {
        wrote: next,
        made: 0,
        displaced: f.argv,
        before: text.slice(s.valueStart, s.valueEnd),
      };
      done.added.push(NOTIFY);
      done.notes.push(`cctop runs your notify program (${f.argv.join(' ')}) after itself`);
    } else {
      next = want(program, []);
      out = insertNotify(text, tomlStrings(next));
      record[ENTRY] = { wrote: next, made: file.text === null ? 1 : 0 };
      done.added.push(NOTIFY);
    }
    check(path, doc, out, next);
    return { kind: 'write', text: out, sidecar: record };
  });
}

/** Take cctop's `notify` out, giving back the user's own exactly as it was. */
export function removeCodexNotify(path: string, program: readonly string[]): PartDone {
  return commit(path, (file, doc, side, done) => {
    const kept = side[ENTRY];
    const record = { ...side };
    delete record[ENTRY];
    const clear = kept === undefined ? null : record;
    if (file.text === null) return { kind: 'none', sidecar: clear };
    const text = file.text;
    const f = found(notifyOf(doc, path), program, side);
    const s = statementOf(text);
    if (f.kind === 'absent' && kept?.before !== undefined && Array.isArray(kept.displaced)) {
      // cctop's line was taken out by hand: the program it displaced comes back all the same.
      const out = insertNotify(text, kept.before);
      check(path, doc, out, kept.displaced as string[]);
      done.removed.push(NOTIFY);
      return { kind: 'write', text: out, sidecar: record };
    }
    // Nothing of cctop's there (or someone else's now): only the record to clear.
    if (f.kind !== 'ours' || s === undefined) return { kind: 'none', sidecar: clear };
    let out: string;
    let expected: string[] | null;
    if (f.chained.length > 0) {
      const original =
        kept?.before !== undefined && sameValue(kept.displaced, f.chained) ? kept.before : null;
      out = replaceValue(text, s, original ?? tomlStrings(f.chained));
      expected = f.chained;
    } else {
      out = deleteNotify(text, s);
      expected = null;
    }
    done.removed.push(NOTIFY);
    check(path, doc, out, expected);
    if (kept?.made === 1 && out.trim() === '') return { kind: 'delete', sidecar: record };
    return { kind: 'write', text: out, sidecar: record };
  });
}

/** How cctop's `notify` stands, read only. */
export function codexNotifyStatus(path: string, program: readonly string[]): PartStatus {
  const status = emptyStatus(path, LABEL, []);
  try {
    const file = readSettingsRaw(path);
    status.exists = file.text !== null;
    const doc = readToml(file);
    const argv = notifyOf(doc, path);
    const f = found(argv, program, readSidecar(file.real));
    if (f.kind === 'ours') {
      if (sameValue(argv, want(program, f.chained))) status.current.push(NOTIFY);
      else {
        status.stale.push(NOTIFY);
        const at = argv!.indexOf('hook');
        status.gone = missingPrograms(argv!.slice(0, at === -1 ? 0 : at));
      }
      if (f.chained.length > 0)
        status.notes.push(`runs your notify program (${f.chained.join(' ')}) after itself`);
    } else {
      status.missing.push(NOTIFY);
      if (f.kind === 'foreign')
        status.notes.push(`notify runs another program (${f.argv.join(' ')}); install chains to it`);
    }
  } catch (err) {
    if (!(err instanceof InstallError)) throw err;
    status.exists = true;
    status.missing = [NOTIFY];
    status.error = err.message;
  }
  return status;
}
