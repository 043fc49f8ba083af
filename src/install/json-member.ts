/**
 * One entry cctop owns in an agent's JSON settings, at a path of keys (`mcpServers.cctop`), put in and
 * taken out as text edits (`json-text.ts`): every other byte of the file (comments, the user's layout,
 * number spellings, the keys an agent keeps beside it in a file it rewrites itself, as Claude Code
 * does `~/.claude.json`) stays as it was, and `remove` after `install` gives back the file's text
 * exactly.
 *
 * The rules are `apply.ts`'s, over text instead of a rewritten document:
 * - cctop's entry is known by the entry's rule, or as the value recorded writing it (`sidecar.ts`);
 *   one pointing at another cctop is repointed in place, one already as wanted is not written again.
 * - Someone else's entry at the place is left alone and reported (`foreign`); there is no `replace`.
 * - What cctop made on the way (objects, the file) is recorded and taken away again, with the text
 *   that was inside an object it filled.
 * - The result is parsed again and compared with the document meant before anything is written; a
 *   file that does not read, a key on the way that is not an object, or a mismatch writes nothing
 *   (`InstallError`).
 *
 * Not here: where the file is or what the entry holds (the entry's owner: `mcp/install.ts`), and
 * reporting how an entry stands, which reads values only (`entryStatus` in `apply.ts`).
 */
import type { Done, InstallOutcome, RemoveOutcome, Target } from './apply.js';
import { commitEdit, type Plan } from './commit.js';
import { type Entry, sameJson, valueAt, withoutValueAt, withValueAt } from './entry.js';
import { addChild, memberOf, type Node, removeChild, replaceValue, stripBom, treeOf } from './json-text.js';
import { readSettingsText, settingsText } from './jsonc.js';
import { InstallError, readSettings, type SettingsFile } from './settings-file.js';
import { entryKey, type Installed, type Sidecar } from './sidecar.js';

const BOM = '\ufeff';

/** Whether a value found at the entry's place is cctop's: by its rule, or as recorded writing it. */
function ours(entry: Entry, found: unknown, sidecar: Sidecar): boolean {
  const kept = sidecar[entryKey(entry.path)];
  return entry.isOurs(found) || (kept !== undefined && sameJson(kept.wrote, found));
}

/** `value` under the keys of `path`, innermost last: `{ a: { b: value } }`. */
const nested = (path: readonly string[], value: unknown): unknown =>
  path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);

/** The objects from the top down to the one holding the entry's key; fewer when a key is missing. */
function containers(root: Node, path: readonly string[]): Node[] {
  const chain = [root];
  for (const key of path.slice(0, -1)) {
    const value = memberOf(chain.at(-1)!, key)?.children?.[1];
    if (value?.type !== 'object') break;
    chain.push(value);
  }
  return chain;
}

function unsafe(target: Target, entry: Entry): never {
  throw new InstallError(
    `${target.path}: cctop could not edit ${entry.path.join('.')} without changing something else in the file; nothing was changed (please report this, with the file's layout)`,
  );
}

/** Refused unless `text` reads as `expected`. */
function check(target: Target, entry: Entry, text: string, expected: unknown): void {
  const read = readSettingsText(text, target.syntax);
  if (read.kind !== 'read' || !sameJson(read.value, expected)) unsafe(target, entry);
}

const withBom = (file: SettingsFile, body: string): string =>
  file.text?.startsWith(BOM) ? BOM + body : body;

/** Put cctop's entry in place, or point it at this cctop; leaves someone else's alone. */
export function installMember(target: Target, entry: Entry): Done<InstallOutcome> {
  let outcome: InstallOutcome = { kind: 'unchanged' };
  const read = () => readSettings(target.path, target.syntax);
  const done = commitEdit(read, (file, sidecar) => {
    const plan = planInstall(target, entry, file, sidecar);
    outcome = plan.outcome;
    return plan.plan;
  });
  return { outcome, wrote: done.wrote ? target.path : null, backup: done.backup };
}

function planInstall(
  target: Target,
  entry: Entry,
  file: SettingsFile,
  sidecar: Sidecar,
): { outcome: InstallOutcome; plan: Plan } {
  const key = entryKey(entry.path);
  const last = entry.path.length - 1;
  const found = valueAt(file.value, entry.path);
  const none: Plan = { kind: 'none', sidecar: null };
  if (found !== undefined) {
    if (!ours(entry, found, sidecar)) return { outcome: { kind: 'foreign', found }, plan: none };
    const next = entry.repoint(found);
    if (sameJson(next, found)) return { outcome: { kind: 'unchanged' }, plan: none };
    const body = stripBom(file.text ?? '');
    const chain = containers(treeOf(body, target.syntax)!, entry.path);
    const at = memberOf(chain[last]!, entry.path[last]!)?.children?.[1];
    if (chain.length !== entry.path.length || at === undefined) return unsafe(target, entry);
    const text = withBom(file, replaceValue(body, at, next, file.layout));
    check(target, entry, text, withValueAt(file.value, entry.path, next)?.doc);
    const record: Installed = { ...(sidecar[key] ?? { made: 0 }), wrote: next };
    return {
      outcome: { kind: 'repointed', from: found },
      plan: { kind: 'write', text, sidecar: { ...sidecar, [key]: record } },
    };
  }
  // A file that is not there, or holds only blanks, starts as `{}`; remove takes it back to that.
  const blank = file.text === null || file.text.trim() === '';
  const body = blank ? settingsText({}, { ...file.layout, bom: false }) : stripBom(file.text!);
  const chain = containers(treeOf(body, target.syntax)!, entry.path);
  const depth = chain.length - 1;
  const holder = depth < last ? memberOf(chain[depth]!, entry.path[depth]!) : undefined;
  if (holder !== undefined)
    throw new InstallError(
      `${target.path}: ${entry.path.slice(0, depth + 1).join('.')} is not an object, so cctop cannot add its ${entry.label} there; nothing was changed`,
    );
  const added = addChild(
    body,
    chain[depth]!,
    entry.path[depth]!,
    nested(entry.path.slice(depth + 1), entry.want),
    file.layout,
  );
  const text = withBom(file, added.text);
  check(target, entry, text, withValueAt(file.value, entry.path, entry.want)?.doc);
  // `made`: objects made on the way; the whole path's length when the file itself was made (or blank).
  const made = blank ? entry.path.length : last - depth;
  const before = blank ? (file.text ?? undefined) : (added.inner ?? undefined);
  const record: Installed = { wrote: entry.want, made, ...(before !== undefined ? { before } : {}) };
  return {
    outcome: { kind: 'added' },
    plan: { kind: 'write', text, sidecar: { ...sidecar, [key]: record } },
  };
}

/** Take cctop's entry out, and what it made for it; leaves someone else's alone. */
export function removeMember(target: Target, entry: Entry): Done<RemoveOutcome> {
  let outcome: RemoveOutcome = { kind: 'absent' };
  const read = () => readSettings(target.path, target.syntax);
  const done = commitEdit(read, (file, sidecar) => {
    const plan = planRemove(target, entry, file, sidecar);
    outcome = plan.outcome;
    return plan.plan;
  });
  return { outcome, wrote: done.wrote ? target.path : null, backup: done.backup };
}

function planRemove(
  target: Target,
  entry: Entry,
  file: SettingsFile,
  sidecar: Sidecar,
): { outcome: RemoveOutcome; plan: Plan } {
  const key = entryKey(entry.path);
  const kept = sidecar[key];
  const rest = { ...sidecar };
  delete rest[key];
  const found = valueAt(file.value, entry.path);
  if (found === undefined)
    return { outcome: { kind: 'absent' }, plan: { kind: 'none', sidecar: kept === undefined ? null : rest } };
  if (!ours(entry, found, sidecar))
    return { outcome: { kind: 'foreign', found }, plan: { kind: 'none', sidecar: null } };
  const path = entry.path;
  const made = Math.min(kept?.made ?? 0, path.length);
  const madeFile = made === path.length;
  const body = stripBom(file.text ?? '');
  const chain = containers(treeOf(body, target.syntax)!, path);
  // The level install added at; below it every object is cctop's, and goes once it holds only the entry.
  const addedAt = path.length - 1 - Math.min(made, path.length - 1);
  let d = path.length - 1;
  while (d > addedAt && (chain[d]!.children?.length ?? 0) === 1) d--;
  const member = memberOf(chain[d]!, path[d]!);
  if (member === undefined) return unsafe(target, entry);
  const inner = d === addedAt && !madeFile ? (kept?.before ?? '') : '';
  const text = withBom(file, removeChild(body, chain[d]!, member, inner));
  const expected = withoutValueAt(file.value, path, made);
  check(target, entry, text, expected);
  const outcome: RemoveOutcome = { kind: 'removed', restored: null };
  // A file cctop made, holding nothing else: it goes, or gets back the blank text it had.
  if (madeFile && sameJson(expected, {})) {
    const plan: Plan =
      kept?.before === undefined
        ? { kind: 'delete', sidecar: rest }
        : { kind: 'write', text: kept.before, sidecar: rest };
    return { outcome, plan };
  }
  return { outcome, plan: { kind: 'write', text, sidecar: rest } };
}
