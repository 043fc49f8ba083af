/**
 * The check made before an edited JSON hook settings file is written: the new text is read again
 * and compared with the file as it was, leaving cctop's own elements out of both. Anything else
 * that differs (a user's hook, a key cctop does not own) or a text that no longer reads refuses the
 * edit with the file's name (`InstallError`), and nothing is written.
 *
 * Not here: the edit itself (`json-hooks.ts`, `json-hook-list.ts`). This only reads values; it does
 * not look at the layout, which the text edits keep by construction.
 */
import { readSettingsText } from '../../install/jsonc.js';
import { InstallError, type SettingsFile } from '../../install/settings-file.js';
import { arr, type JsonObject, obj } from '../../model/json.js';
import {
  commandFor,
  commandsOf,
  isMine,
  type JsonHooksSpec,
  type Mine,
  sameValue,
} from './json-hook-list.js';

/**
 * The document without cctop's elements; a list that held only those goes too, and then an emptied
 * `hooks`, unless `ref` (the other side of the comparison) has it: what cctop made goes, what the
 * user had stays.
 */
function withoutOurs(doc: unknown, mine: Mine, ref: unknown): unknown {
  const o = obj(doc);
  const hooks = obj(o?.hooks);
  if (o === null || hooks === null) return doc;
  const refHooks = obj(obj(ref)?.hooks);
  const kept: JsonObject = {};
  for (const [event, v] of Object.entries(hooks)) {
    const list = arr(v);
    if (list === null) {
      kept[event] = v;
      continue;
    }
    const left = list.filter((el) => !isMine(mine, el, event));
    if (left.length > 0 || list.length === 0 || (refHooks !== null && Object.hasOwn(refHooks, event)))
      kept[event] = left;
  }
  const out = { ...o };
  if (Object.keys(kept).length === 0 && Object.keys(hooks).length > 0 && refHooks === null) delete out.hooks;
  else out.hooks = kept;
  return out;
}

/** Refused unless `text` reads, keeps all the user had, and runs this cctop's hook on every event. */
export function checkInstalled(mine: Mine, file: SettingsFile, text: string): void {
  const { spec, program } = mine;
  const after = readBack(spec, text);
  const before = file.text === null || file.text.trim() === '' ? spec.newFile : file.value;
  const hooks = obj(obj(after)?.hooks);
  const complete = spec.events.every((event) =>
    (arr(hooks?.[event]) ?? []).some((el) => commandsOf(spec, el).includes(commandFor(spec, program, event))),
  );
  if (!complete || !sameValue(withoutOurs(after, mine, before), withoutOurs(before, mine, before)))
    unsafe(spec);
}

/** Refused unless `text` reads, keeps all the user had, and holds no hook of cctop's. */
export function checkRemoved(spec: JsonHooksSpec, mine: Mine, file: SettingsFile, text: string): void {
  const after = readBack(spec, text);
  const hooks = obj(obj(after)?.hooks) ?? {};
  const left = Object.entries(hooks).some(([event, v]) =>
    (arr(v) ?? []).some((el) => isMine(mine, el, event)),
  );
  if (left || !sameValue(after, withoutOurs(file.value, mine, after))) unsafe(spec);
}

function readBack(spec: JsonHooksSpec, text: string): unknown {
  const read = readSettingsText(text, spec.target.syntax);
  if (read.kind !== 'read') unsafe(spec);
  return read.value;
}

function unsafe(spec: JsonHooksSpec): never {
  throw new InstallError(
    `${spec.target.path}: cctop could not edit this file without changing something else in it; nothing was changed (please report this, with the file's layout)`,
  );
}
