/**
 * Which session mode an ACP run asks for. ACP leaves modes to each agent (ids such as Gemini CLI's
 * `default`, `autoEdit`, `yolo`, `plan`), offered when the session opens, either as `modes` or, in
 * the newer form, as a config option of category `mode`. drive's permission levels are looked up
 * among the ids agents use for the same thing; a caller who knows the agent names the mode itself
 * (`acp.mode`).
 *
 * A level that needs a mode the agent does not offer is refused (`missing`), never quietly run in
 * the agent's default mode. Two levels need none: `default` is the agent's own mode by definition,
 * and `read-only` holds without one, because every permission request of a run without approvals is
 * rejected; a mode only makes it hold for tools the agent would run without asking.
 */
import { arr, type JsonObject, obj, str } from '../../model/json.js';
import type { Permission } from '../request.js';

export type ModeChoice =
  /** Nothing to set: the agent's current mode is the one wanted, or none is needed. */
  | { kind: 'keep' }
  /** `session/set_mode`. */
  | { kind: 'set_mode'; modeId: string }
  /** `session/set_config_option` on the option of category `mode`. */
  | { kind: 'config'; configId: string; value: string }
  /** The level (or the named mode) needs a mode the agent does not offer; `offered` lists its ids. */
  | { kind: 'missing'; offered: string[] };

/** The mode ids agents use for each level, best first (Gemini CLI, Claude Code's and Codex's ACP adapters). */
const CANDIDATES: Record<Permission, readonly string[]> = {
  'read-only': ['read-only', 'readonly', 'read_only', 'plan'],
  plan: ['plan'],
  default: [],
  edit: ['acceptEdits', 'autoEdit', 'auto_edit', 'auto-edit', 'edit'],
  auto: ['auto', 'yolo'],
  bypass: ['bypassPermissions', 'bypass', 'yolo', 'full-access', 'full_access'],
};

/** Levels that hold without a mode (see the module's opening). */
const HOLDS_WITHOUT: ReadonlySet<Permission> = new Set(['default', 'read-only']);

/** What the agent offered when the session opened, in either form. */
interface Offer {
  ids: string[];
  current: string | null;
  /** Set through this config option, or through `session/set_mode` when null. */
  configId: string | null;
}

/** The values of a select option, flat or grouped (`{ group, options: […] }`). */
function selectValues(options: unknown): string[] {
  return (arr(options) ?? []).flatMap((o) => {
    const opt = obj(o);
    if (opt === null) return [];
    const value = str(opt.value);
    return value !== null ? [value] : selectValues(opt.options);
  });
}

function offerOf(session: JsonObject | null): Offer | null {
  for (const o of arr(session?.configOptions) ?? []) {
    const option = obj(o);
    const id = str(option?.id);
    if (option === null || id === null || str(option.category) !== 'mode') continue;
    return { ids: selectValues(option.options), current: str(option.currentValue), configId: id };
  }
  const modes = obj(session?.modes);
  if (modes === null) return null;
  const ids = (arr(modes.availableModes) ?? []).flatMap((m) => {
    const id = str(obj(m)?.id);
    return id === null ? [] : [id];
  });
  return { ids, current: str(modes.currentModeId), configId: null };
}

/** The mode to ask for, given what the session offered (the reply to `session/new` or `session/load`). */
export function chooseMode(
  session: JsonObject | null,
  permission: Permission,
  named: string | undefined,
): ModeChoice {
  const offer = offerOf(session);
  const wanted = named !== undefined ? [named] : CANDIDATES[permission];
  if (wanted.length === 0) return { kind: 'keep' };
  const ids = offer?.ids ?? [];
  const found = wanted
    .map((w) => ids.find((id) => id.toLowerCase() === w.toLowerCase()))
    .find((id) => id !== undefined);
  if (found === undefined) {
    return named === undefined && HOLDS_WITHOUT.has(permission)
      ? { kind: 'keep' }
      : { kind: 'missing', offered: ids };
  }
  if (found === offer?.current) return { kind: 'keep' };
  return offer?.configId != null
    ? { kind: 'config', configId: offer.configId, value: found }
    : { kind: 'set_mode', modeId: found };
}
