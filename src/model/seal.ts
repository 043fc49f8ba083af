/**
 * The one redaction of what was read from a transcript, applied before anyone sees it: a
 * conversation's turns (`model/conversation.ts`) and a session's call log (`model/calls.ts`) go
 * through `secrets/redact.ts` here, so chat, export, handoff, the search index, the report, the
 * dashboard and MCP never hold a secret in full.
 *
 * Not here: what counts as a secret or how it is masked (`secrets/redact.ts`), and when a turn or a
 * log is sealed (the `TurnSink` seals each turn as it leaves; `providers/fence.ts` seals a call log).
 */

import { redactEach, type Secret } from '../secrets/redact.js';
import type { CallLog } from './calls.js';
import type { Turn } from './conversation.js';

/**
 * Redact every piece of transcript text a turn holds, in place; its pieces are scanned together
 * first (`redactEach`), since nearly every turn holds no secret.
 */
export function seal(t: Turn, found?: (s: Secret) => void): void {
  // A value a turn holds twice (a command in a call's one-line detail and in its full input) is told once.
  const told = new Set<string>();
  const onFound =
    found === undefined
      ? undefined
      : (s: Secret) => {
          if (told.has(s.value)) return;
          told.add(s.value);
          found(s);
        };
  const pieces = [t.text];
  for (const u of t.tools) {
    pieces.push(u.detail, u.full ?? '', u.result ?? '');
    for (const d of u.diff) pieces.push(d);
  }
  const sealed = redactEach(pieces, onFound);
  let i = 0;
  t.text = sealed[i++]!;
  for (const u of t.tools) {
    u.detail = sealed[i++]!;
    const full = sealed[i++]!;
    if (u.full !== null) u.full = full;
    const result = sealed[i++]!;
    if (u.result !== null) u.result = result;
    u.diff = u.diff.map(() => sealed[i++]!);
  }
}

/**
 * Redact every piece of transcript text a call log holds, in place (`secrets/redact.ts`): a call's
 * command and argument, its result, the paths it touched. The report, the dashboard's session page
 * and MCP's get_session read calls only once sealed, as chat reads turns only once sealed.
 */
export function sealCalls(log: CallLog): CallLog {
  const pieces: string[] = [];
  for (const c of log.calls) {
    pieces.push(c.detail, c.argument, c.result ?? '');
    for (const f of c.files) pieces.push(f.path);
  }
  const sealed = redactEach(pieces);
  let i = 0;
  for (const c of log.calls) {
    c.detail = sealed[i++]!;
    c.argument = sealed[i++]!;
    const result = sealed[i++]!;
    if (c.result !== null) c.result = result;
    for (const f of c.files) f.path = sealed[i++]!;
  }
  return log;
}
