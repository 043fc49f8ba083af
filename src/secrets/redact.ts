/**
 * The one redaction every piece of transcript text goes through before it leaves cctop: a chat
 * line, an export, a handoff brief, a search row (the index stores what this returns), the
 * dashboard, an MCP answer, a title pushed to the team store.
 *
 * A secret becomes its first few characters and its kind, `sk-p…[redacted: OpenAI key]`: enough for
 * the person to know which key it was and rotate it, too little to use. The full value is only ever
 * handed to `onFound` (so `cctop secrets` can list where each was), never returned.
 *
 * Not here: finding them (`detect.ts`).
 */
import { type Found, findSecrets, RulesUnavailable } from './detect.js';

/** Characters of a secret kept in front of the marker: a key's prefix (`sk-p`, `ghp_`, `AKIA`) and no more. */
export const SHOWN_CHARS = 4;

/** What every mask holds: a text without it had nothing redacted. */
export const MASK_MARK = '…[redacted: ';

/** A secret as a person may see it: its first characters, then its kind. */
export function masked(value: string, kind: string): string {
  return `${value.slice(0, SHOWN_CHARS)}${MASK_MARK}${kind}]`;
}

/** A found secret with its value, for the one reader that keeps findings (`cctop secrets`). */
export interface Secret {
  kind: string;
  value: string;
}

/** What stands for a text that could not be checked: none of it, rather than all of it. */
export const UNCHECKED = '[not shown: cctop could not load its secret rules; run cctop doctor]';

/**
 * `text` with every secret in it replaced by `masked`; each one found is handed to `onFound` first.
 * When the rules cannot load, the whole text is withheld (`UNCHECKED`).
 */
export function redact(text: string, onFound?: (s: Secret) => void): string {
  let found: Found[];
  try {
    found = findSecrets(text);
  } catch (err) {
    if (err instanceof RulesUnavailable) return text.length === 0 ? text : UNCHECKED;
    throw err;
  }
  if (found.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of found) {
    const value = text.slice(f.start, f.end);
    onFound?.({ kind: f.kind, value });
    out += text.slice(at, f.start) + masked(value, f.kind);
    at = f.end;
  }
  return out + text.slice(at);
}

/** Between pieces scanned as one text: no rule matches across a blank line holding a NUL. */
const PIECE_GAP = '\n\u0000\n';

/**
 * Characters of pieces scanned together. Nearly all text holds no secret, and one scan of many
 * pieces costs the rules' setup once instead of once a piece; a chunk that finds one is redacted
 * piece by piece. Large enough that a session's calls take a handful of scans, small enough that a
 * hit re-scans little.
 */
const CHUNK_CHARS = 64 * 1024;

/** Each of `pieces` redacted, scanned together a chunk at a time (same answer as `redact` on each). */
export function redactEach(pieces: readonly string[], onFound?: (s: Secret) => void): string[] {
  const out = [...pieces];
  let from = 0;
  while (from < pieces.length) {
    let to = from;
    let size = 0;
    while (to < pieces.length && (to === from || size + pieces[to]!.length <= CHUNK_CHARS)) {
      size += pieces[to]!.length + PIECE_GAP.length;
      to++;
    }
    const whole = pieces.slice(from, to).join(PIECE_GAP);
    if (redact(whole) !== whole) for (let i = from; i < to; i++) out[i] = redact(pieces[i]!, onFound);
    from = to;
  }
  return out;
}
