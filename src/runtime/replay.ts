/**
 * What the pty host replays to a terminal that attaches: the agent's kept output without the
 * sequences that ask the terminal something. An agent asks its terminal at start who it is and what
 * it can do (device attributes, its version, its colours, the cursor's place); replayed as they were,
 * those questions reach the terminal attaching now, which answers them, and the answers go to the
 * agent as if typed: Gemini CLI 0.61.0 and Qwen Code 0.24.4 showed `>|tmux 3.3a` and `[?1;2c` in
 * their input boxes after an attach, in the lab. The agent asked long ago and is not waiting.
 *
 * Only questions are dropped; everything that draws stays. Not here: what is kept (`pty-host.ts`).
 */

/**
 * CSI requests that a terminal answers: device attributes (primary, secondary, tertiary), status and
 * cursor position reports, XTVERSION, the kitty keyboard query, mode requests (DECRQM), and
 * XTWINOPS's size and title reports (11, 13–16, 18–21).
 */
const CSI_QUERY = /\x1b\[(?:[>=]?0?c|\??[56]n|>0?q|\?u|\??\d+\$p|(?:1[13-689]|2[01])t)/g;

/** OSC colour queries (10–19, a palette entry with 4) and a clipboard read (52), ended by BEL or ST. */
const OSC_QUERY = /\x1b\](?:1\d|4;\d+|52;[^;\x07\x1b]*);\?(?:\x07|\x1b\\)/g;

/** DCS requests: a setting (DECRQSS, `$q`) or a terminfo capability (XTGETTCAP, `+q`). */
const DCS_QUERY = /\x1bP[$+]q[^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** `out` with every terminal question taken out (bytes as they are otherwise). */
export function withoutQueries(out: Buffer): Buffer {
  // Latin-1 maps each byte to one character and back, so UTF-8 text passes through untouched: the
  // sequences matched are ASCII, and no byte of a multi-byte character is ASCII.
  const text = out.toString('latin1');
  const kept = text.replace(CSI_QUERY, '').replace(OSC_QUERY, '').replace(DCS_QUERY, '');
  return kept.length === text.length ? out : Buffer.from(kept, 'latin1');
}
