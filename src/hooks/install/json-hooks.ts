/**
 * cctop's hooks in an agent's JSON settings, where each event is a list under `hooks`:
 * `hooks.<Event>: [ <element>, … ]`. Claude Code, Codex's hooks file, Gemini CLI and Qwen Code put a
 * group there (`{ "hooks": [ { "type": "command", "command": … } ] }`); Cursor the command itself
 * (`{ "command": … }`). cctop adds one element of its own to each event's list, after the user's.
 *
 * The rules:
 * - Only text is added or taken away (`install/json-text.ts`): comments, the user's layout, their own
 *   hooks and every key cctop does not own stay byte for byte. The result is parsed again and
 *   compared with what was meant before anything is written; a mismatch writes nothing.
 * - cctop's element is known by its command (`command.ts`), or as the value cctop recorded writing
 *   (`install/sidecar.ts`). One that runs another cctop (moved, or another install) is repointed in
 *   place; one already as wanted is not written again, so a second install writes nothing.
 * - What cctop made on the way (an event's list, the `hooks` object, the file) is recorded, and
 *   `remove` takes away exactly that, putting back the inside of a container it had opened; a list
 *   or object the user had stays, even when empty.
 * - A file that does not read, or whose `hooks` or list is not what the agent reads, is refused with
 *   its name, and nothing is written (`InstallError`).
 *
 * Not here: which file and element each agent has (`agents.ts`), the files themselves
 * (`install/settings-file.ts`), reading and editing one event's list (`json-hook-list.ts`), or the
 * check of the result before it is written (`json-hooks-check.ts`).
 */
import { findNodeAtLocation, getNodeValue, type Node } from 'jsonc-parser';
import { commitEdit, type Plan } from '../../install/commit.js';
import { addChild, removeChild, replaceNode, replaceValue, stripBom } from '../../install/json-text.js';
import { type Layout, readSettingsText, settingsText } from '../../install/jsonc.js';
import { InstallError, readSettings, type SettingsFile } from '../../install/settings-file.js';
import { type Installed, readSidecar, type Sidecar } from '../../install/sidecar.js';
import { arr, obj } from '../../model/json.js';
import { missingPrograms, programOf, readHookCommand } from './command.js';
import {
  commandFor,
  commandsOf,
  elementFor,
  eventOfKey,
  HOLD_ARG,
  hooksOf,
  innerAt,
  isCurrentCommand,
  isMine,
  type JsonHooksSpec,
  keyOf,
  listOf,
  MADE_FILE,
  MADE_HOOKS,
  MADE_LIST,
  type Mine,
  presentEvents,
  removeEvent,
  rootOf,
  sameValue,
} from './json-hook-list.js';
import { checkInstalled, checkRemoved } from './json-hooks-check.js';
import { emptyStatus, type PartDone, type PartStatus } from './types.js';

const BOM = '\ufeff';

/** The text of a file cctop makes: what it starts with, laid out as Claude Code writes JSON. */
function newFileText(spec: JsonHooksSpec, layout: Layout): string {
  return settingsText(spec.newFile, layout);
}

interface Change {
  added: string[];
  repointed: string[];
  removed: string[];
}

/** Put cctop's hook into every event's list; repoint its own; take out those of events it no longer installs. */
export function installJsonHooks(spec: JsonHooksSpec, program: readonly string[]): PartDone {
  return commit(spec, (file, sidecar, change) => planInstall(spec, program, file, sidecar, change));
}

/** Take every hook of cctop's out, and what cctop made for them. */
export function removeJsonHooks(spec: JsonHooksSpec, program: readonly string[]): PartDone {
  return commit(spec, (file, sidecar, change) => planRemove(spec, program, file, sidecar, change));
}

function commit(
  spec: JsonHooksSpec,
  plan: (file: SettingsFile, sidecar: Sidecar, change: Change) => Plan,
): PartDone {
  let change: Change = { added: [], repointed: [], removed: [] };
  const committed = commitEdit(
    () => readSettings(spec.target.path, spec.target.syntax),
    (file, sidecar) => {
      change = { added: [], repointed: [], removed: [] };
      return plan(file, sidecar, change);
    },
  );
  return { file: spec.target.path, label: spec.target.label, ...change, ...committed, notes: [] };
}

function planInstall(
  spec: JsonHooksSpec,
  program: readonly string[],
  file: SettingsFile,
  sidecar: Sidecar,
  change: Change,
): Plan {
  const side: Sidecar = { ...sidecar };
  const mine: Mine = { spec, program, records: [sidecar] };
  const blank = file.text === null || file.text.trim() === '';
  // A file cctop makes is recorded on the first entry it adds: remove deletes it (or gives back its blank text).
  let makingFile: Installed | null = blank
    ? { wrote: null, made: MADE_FILE, ...(file.text !== null ? { before: file.text } : {}) }
    : null;
  const layout: Layout = file.layout;
  let text = blank ? newFileText(spec, layout) : stripBom(file.text!);

  for (const event of spec.events) {
    const command = commandFor(spec, program, event);
    const want = elementFor(spec, event, command);
    const root = rootOf(text, spec);
    const hooks = hooksOf(root, spec);
    if (hooks === null) {
      const r = addChild(text, root, 'hooks', { [event]: [want] }, layout);
      text = r.text;
      side[keyOf(event)] = makingFile
        ? { ...makingFile, wrote: want }
        : { wrote: want, made: MADE_HOOKS, ...(r.inner !== null ? { before: r.inner } : {}) };
      makingFile = null;
      change.added.push(event);
      continue;
    }
    const list = listOf(hooks.node, event, spec);
    if (list === null) {
      const r = addChild(text, hooks.node, event, [want], layout);
      text = r.text;
      side[keyOf(event)] = { wrote: want, made: MADE_LIST, ...(r.inner !== null ? { before: r.inner } : {}) };
      change.added.push(event);
      continue;
    }
    const ours = (list.node.children ?? []).filter((el) => isMine(mine, getNodeValue(el), event));
    if (ours.length === 0) {
      const r = addChild(text, list.node, null, want, layout);
      text = r.text;
      side[keyOf(event)] = { wrote: want, made: 0, ...(r.inner !== null ? { before: r.inner } : {}) };
      change.added.push(event);
      continue;
    }
    // cctop's own: every command of it that is not this cctop's is repointed, from the end back so
    // that the offsets before each edit still hold.
    const stale: Node[] = [];
    for (const el of ours)
      for (const path of spec.commandPaths(getNodeValue(el))) {
        const at = findNodeAtLocation(el, path);
        if (at?.type === 'string' && at.value !== command) stale.push(at);
      }
    stale.sort((a, b) => b.offset - a.offset);
    for (const at of stale) text = replaceNode(text, at, command);
    if (stale.length > 0) change.repointed.push(event);
    let now = listOf(hooksOf(rootOf(text, spec), spec)!.node, event, spec)!;
    let first = (now.node.children ?? []).find((el) => isMine(mine, getNodeValue(el), event))!;
    // Held or not, the element's timeout follows (a deciding hook needs room for its hold).
    if (!sameValue(getNodeValue(first), want)) {
      text = replaceValue(text, first, want, layout);
      if (stale.length === 0) change.repointed.push(event);
      now = listOf(hooksOf(rootOf(text, spec), spec)!.node, event, spec)!;
      first = (now.node.children ?? []).find((el) => isMine(mine, getNodeValue(el), event))!;
    }
    side[keyOf(event)] = { ...(side[keyOf(event)] ?? { made: 0 }), wrote: getNodeValue(first) };
  }

  // Hooks of cctop's for events it no longer installs (an older version's list) go.
  const wanted = new Set(spec.events);
  for (const event of presentEvents(text, spec))
    if (!wanted.has(event)) {
      const r = removeEvent(text, event, spec, mine, side);
      if (r !== text) change.removed.push(event);
      text = r;
      delete side[keyOf(event)];
    }
  for (const key of Object.keys(side)) {
    const event = eventOfKey(key);
    if (event !== null && !wanted.has(event)) delete side[key];
  }

  const out = file.text?.startsWith(BOM) ? BOM + text : text;
  if (out === file.text) return { kind: 'none', sidecar: sameValue(side, sidecar) ? null : side };
  checkInstalled({ spec, program, records: [sidecar, side] }, file, out);
  return { kind: 'write', text: out, sidecar: side };
}

function planRemove(
  spec: JsonHooksSpec,
  program: readonly string[],
  file: SettingsFile,
  sidecar: Sidecar,
  change: Change,
): Plan {
  const side: Sidecar = { ...sidecar };
  const mine: Mine = { spec, program, records: [sidecar] };
  const fileEntry = Object.entries(sidecar).find(([k, e]) => eventOfKey(k) !== null && e.made === MADE_FILE);
  const rest = (): Sidecar => {
    const out: Sidecar = {};
    for (const [k, e] of Object.entries(side)) if (eventOfKey(k) === null) out[k] = e;
    return out;
  };
  if (file.text === null) return { kind: 'none', sidecar: sameValue(rest(), sidecar) ? null : rest() };
  let text = stripBom(file.text);
  if (text.trim() === '') return { kind: 'none', sidecar: sameValue(rest(), sidecar) ? null : rest() };

  const events = new Set([
    ...presentEvents(text, spec),
    ...Object.keys(sidecar).flatMap((k) => eventOfKey(k) ?? []),
  ]);
  for (const event of events) {
    const r = removeEvent(text, event, spec, mine, side);
    if (r !== text) change.removed.push(event);
    text = r;
  }
  // The `hooks` object goes when cctop made it and nothing is left in it.
  const root = rootOf(text, spec);
  const hooks = hooksOf(root, spec);
  const madeHooks = Object.entries(side).some(([k, e]) => eventOfKey(k) !== null && e.made >= MADE_HOOKS);
  if (hooks !== null && (hooks.node.children ?? []).length === 0 && madeHooks)
    text = removeChild(text, root, hooks.member, innerAt(side, MADE_HOOKS));

  const out = file.text.startsWith(BOM) ? BOM + text : text;
  const left = rest();
  // A file cctop made, holding nothing but what it started with, goes (or gets its blank text back).
  if (fileEntry !== undefined) {
    const read = readSettingsText(out, spec.target.syntax);
    if (read.kind === 'read' && sameValue(read.value, spec.newFile)) {
      const before = fileEntry[1].before;
      if (before === undefined) return { kind: 'delete', sidecar: left };
      return { kind: 'write', text: before, sidecar: left };
    }
  }
  if (out === file.text) return { kind: 'none', sidecar: sameValue(left, sidecar) ? null : left };
  checkRemoved(spec, mine, file, out);
  return { kind: 'write', text: out, sidecar: left };
}

/** A note per event whose hook holds requests for an answer from cctop (`--approvals`), with how long. */
function holdNotes(
  spec: JsonHooksSpec,
  program: readonly string[],
  hooks: Record<string, unknown>,
): string[] {
  const notes: string[] = [];
  for (const [event, list] of Object.entries(hooks))
    for (const el of arr(list) ?? [])
      for (const c of commandsOf(spec, el)) {
        const read = readHookCommand(c, program);
        if (read?.event === event && read.rest[0] === HOLD_ARG)
          notes.push(
            `${event} holds each request up to ${read.rest[1]} s for an answer from cctop (docs/act.md)`,
          );
      }
  return notes;
}

/** How cctop's hooks stand in the file, read only. A file that does not read is reported, not refused. */
export function jsonHooksStatus(spec: JsonHooksSpec, program: readonly string[]): PartStatus {
  const status = emptyStatus(spec.target.path, spec.target.label, []);
  let file: SettingsFile;
  let sidecar: Sidecar;
  try {
    file = readSettings(spec.target.path, spec.target.syntax);
    sidecar = readSidecar(file.real);
  } catch (err) {
    if (!(err instanceof InstallError)) throw err;
    return { ...status, exists: true, missing: [...spec.events], error: err.message };
  }
  status.exists = file.text !== null;
  const mine: Mine = { spec, program, records: [sidecar] };
  const hooks = obj(file.value.hooks) ?? {};
  const gone = new Set<string>();
  const wanted = new Set(spec.events);
  for (const event of new Set([...spec.events, ...Object.keys(hooks)])) {
    const ours = (arr(hooks[event]) ?? []).filter((el) => isMine(mine, el, event));
    if (!wanted.has(event)) {
      if (ours.length > 0) status.extra.push(event);
      continue;
    }
    if (ours.length === 0) status.missing.push(event);
    else if (ours.every((el) => commandsOf(spec, el).every((c) => isCurrentCommand(spec, program, event, c))))
      status.current.push(event);
    else {
      status.stale.push(event);
      for (const el of ours)
        for (const c of commandsOf(spec, el)) for (const p of missingPrograms(programOf(c))) gone.add(p);
    }
  }
  status.gone = [...gone];
  status.notes = [...spec.notes(file.value), ...holdNotes(spec, program, hooks)];
  return status;
}
