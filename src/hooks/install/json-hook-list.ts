/**
 * One event's list in an agent's JSON hook settings, as text and as read: finding `hooks` and the
 * list in the file (refusing a `hooks` or list that is not what the agent reads), telling which of
 * its elements are cctop's, and taking them out again, with the list and what was inside it when
 * cctop made it.
 *
 * An element is cctop's when every command it runs is cctop's hook for this agent (`command.ts`),
 * or when it is the value cctop recorded writing (`install/sidecar.ts`, one record per event under
 * `hooks.<Event>`, with `made` saying which containers cctop opened for it).
 *
 * Not here: deciding what to write and writing it (`json-hooks.ts`), or checking the result before
 * it is written (`json-hooks-check.ts`). Nothing here reads or writes a file.
 */
import { getNodeValue, type Node } from 'jsonc-parser';
import type { Target } from '../../install/apply.js';
import { sameValue } from '../../install/entry.js';
import { memberOf, removeChild, treeOf, valueOfMember } from '../../install/json-text.js';
import { InstallError } from '../../install/settings-file.js';
import type { Sidecar } from '../../install/sidecar.js';
import { arr, type JsonObject, obj, str } from '../../model/json.js';
import type { HookAgent } from '../types.js';
import { hookCommand, readHookCommand } from './command.js';

export { sameValue };

/** One agent's JSON hook settings. */
export interface JsonHooksSpec {
  agent: HookAgent;
  target: Target;
  /** The events cctop installs. */
  events: readonly string[];
  /** What cctop puts in an event's list to run `command`. */
  element(command: string): JsonObject;
  /** Where the commands sit inside an element of the list (keys and indexes from it). */
  commandPaths(element: unknown): (string | number)[][];
  /** What a file cctop makes starts with (Cursor's `"version": 1`). */
  newFile: JsonObject;
  /** What the user must know about the file as it is (a setting that turns hooks off). */
  notes(doc: JsonObject): string[];
  /**
   * Deciding hooks (`cctop hooks install --approvals`): these events' commands hold requests
   * (`args`: `--hold SECONDS`) and their elements give the agent's timeout room for the hold.
   * Absent: every hook only watches.
   */
  held?: { events: readonly string[]; args: readonly string[]; element(command: string): JsonObject };
}

/** The command cctop installs for `event`, holding or not as the spec says. */
export function commandFor(spec: JsonHooksSpec, program: readonly string[], event: string): string {
  const held = spec.held?.events.includes(event) === true;
  return hookCommand(program, spec.agent, event, held ? spec.held!.args : []);
}

/** The element cctop installs for `event` to run `command`. */
export function elementFor(spec: JsonHooksSpec, event: string, command: string): JsonObject {
  return spec.held?.events.includes(event) === true ? spec.held.element(command) : spec.element(command);
}

/** Whether `command` is this cctop's hook for `event`, watching or holding (any hold). */
export function isCurrentCommand(
  spec: JsonHooksSpec,
  program: readonly string[],
  event: string,
  command: string,
): boolean {
  if (command === hookCommand(program, spec.agent, event)) return true;
  const read = readHookCommand(command, program);
  return (
    read !== null &&
    read.event === event &&
    read.rest.length === 2 &&
    read.rest[0] === HOLD_ARG &&
    command === hookCommand(program, spec.agent, event, read.rest)
  );
}

/** The flag of a deciding hook (`hooks/run.ts` reads it). */
export const HOLD_ARG = '--hold';

/** The levels `made` counts: the event's list, the `hooks` object, the file itself. */
export const MADE_LIST = 1;
export const MADE_HOOKS = 2;
export const MADE_FILE = 3;

export const keyOf = (event: string): string => `hooks.${event}`;
export const eventOfKey = (key: string): string | null =>
  key.startsWith('hooks.') ? key.slice('hooks.'.length) : null;

/** The commands an element runs (strings at its command paths). */
export function commandsOf(spec: JsonHooksSpec, element: unknown): string[] {
  const out: string[] = [];
  for (const path of spec.commandPaths(element)) {
    let at: unknown = element;
    for (const k of path) at = typeof k === 'number' ? arr(at)?.[k] : obj(at)?.[k];
    const s = str(at);
    if (s !== null) out.push(s);
  }
  return out;
}

/** What decides whether an element is cctop's. */
export interface Mine {
  spec: JsonHooksSpec;
  program: readonly string[];
  /** The records kept beside the file (before and after an edit that changes them). */
  records: readonly Sidecar[];
}

/** Whether an element is cctop's: every command it runs is cctop's hook for this agent, or it is what cctop recorded. */
export function isMine(m: Mine, element: unknown, event: string): boolean {
  const cmds = commandsOf(m.spec, element);
  if (cmds.length > 0 && cmds.every((c) => readHookCommand(c, m.program)?.agent === m.spec.agent))
    return true;
  return m.records.some((r) => {
    const kept = r[keyOf(event)];
    return kept !== undefined && sameValue(kept.wrote, element);
  });
}

/** The document's root object node. */
export function rootOf(text: string, spec: JsonHooksSpec): Node {
  const root = treeOf(text, spec.target.syntax);
  if (root?.type !== 'object')
    throw new InstallError(`${spec.target.path} does not hold a JSON object; nothing was changed`);
  return root;
}

/** The `hooks` object node, null when there is none; refused when it is something else. */
export function hooksOf(root: Node, spec: JsonHooksSpec): { member: Node; node: Node } | null {
  const member = memberOf(root, 'hooks');
  if (member === undefined) return null;
  const node = valueOfMember(member);
  if (node?.type !== 'object')
    throw new InstallError(
      `${spec.target.path}: "hooks" is not an object, so cctop cannot add its hooks there; nothing was changed`,
    );
  return { member, node };
}

/** An event's list node, null when there is none; refused when it is something else. */
export function listOf(hooks: Node, event: string, spec: JsonHooksSpec): { member: Node; node: Node } | null {
  const member = memberOf(hooks, event);
  if (member === undefined) return null;
  const node = valueOfMember(member);
  if (node?.type !== 'array')
    throw new InstallError(
      `${spec.target.path}: hooks.${event} is not a list, so cctop cannot add its hook there; nothing was changed`,
    );
  return { member, node };
}

/** What was inside the container at `level` before cctop opened it ('' when it was not recorded). */
export function innerAt(side: Sidecar, level: number): string {
  for (const [k, e] of Object.entries(side))
    if (eventOfKey(k) !== null && e.made === level && e.before !== undefined) return e.before;
  return '';
}

/** The events named under `hooks`. */
export function presentEvents(text: string, spec: JsonHooksSpec): string[] {
  const hooks = hooksOf(rootOf(text, spec), spec);
  return (hooks?.node.children ?? []).flatMap((p) => {
    const k = p.children?.[0]?.value;
    return typeof k === 'string' ? [k] : [];
  });
}

/**
 * `text` without cctop's elements in `event`'s list; the list itself goes too when cctop made it
 * and nothing else is in it. A list that is not a list is left alone (remove refuses nothing).
 */
export function removeEvent(
  text: string,
  event: string,
  spec: JsonHooksSpec,
  mine: Mine,
  side: Sidecar,
): string {
  const kept = side[keyOf(event)];
  const made = kept?.made ?? 0;
  for (;;) {
    const root = rootOf(text, spec);
    const hooks = hooksOf(root, spec);
    const member = hooks === null ? undefined : memberOf(hooks.node, event);
    const list = member === undefined ? undefined : valueOfMember(member);
    if (hooks === null || member === undefined || list?.type !== 'array') return text;
    const children = list.children ?? [];
    const ours = children.filter((el) => isMine(mine, getNodeValue(el), event));
    if (ours.length === 0) return text;
    if (ours.length === children.length && made >= MADE_LIST)
      return removeChild(text, hooks.node, member, innerAt(side, MADE_LIST));
    text = removeChild(text, list, ours.at(-1)!, made === 0 ? (kept?.before ?? '') : '');
  }
}
