/**
 * Bytes from a raw terminal into key and mouse events.
 *
 * A terminal may split one escape sequence across reads (over ssh, through tmux), so the decoder
 * holds an unfinished sequence until the next read, and a lone Esc becomes a key only when nothing
 * follows it for `ESCAPE_WAIT_MS`.
 */

export type Key =
  | { kind: 'char'; ch: string }
  | { kind: 'up' | 'down' | 'left' | 'right' | 'pageup' | 'pagedown' | 'home' | 'end' }
  | { kind: 'enter' | 'escape' | 'backspace' | 'tab' | 'ctrl-c' | 'ctrl-l' }
  | { kind: 'click'; x: number; y: number }
  | { kind: 'wheel'; up: boolean };

const SEQUENCES: Record<string, Key> = {
  '\u001b[A': { kind: 'up' },
  '\u001b[B': { kind: 'down' },
  '\u001b[C': { kind: 'right' },
  '\u001b[D': { kind: 'left' },
  '\u001bOA': { kind: 'up' },
  '\u001bOB': { kind: 'down' },
  '\u001bOC': { kind: 'right' },
  '\u001bOD': { kind: 'left' },
  '\u001b[5~': { kind: 'pageup' },
  '\u001b[6~': { kind: 'pagedown' },
  '\u001b[H': { kind: 'home' },
  '\u001b[F': { kind: 'end' },
  '\u001b[1~': { kind: 'home' },
  '\u001b[4~': { kind: 'end' },
  '\u001bOH': { kind: 'home' },
  '\u001bOF': { kind: 'end' },
  '\u001b[Z': { kind: 'tab' },
};

/** How long a lone Esc waits for the rest of a sequence before it counts as the Esc key. */
export const ESCAPE_WAIT_MS = 40;
/** The longest unfinished sequence held between reads; anything longer is not a sequence. */
const MAX_PENDING = 32;

/** Could `s` (starting with Esc) still grow into a sequence this decoder knows? */
function unfinished(s: string): boolean {
  if (s.length >= MAX_PENDING) return false;
  if (s === '\u001b' || s === '\u001b[' || s === '\u001bO') return true;
  if (/^\u001b\[<[\d;]*$/.test(s)) return true;
  if (/^\u001b\[[0-9;?]*$/.test(s)) return true;
  return false;
}

/**
 * Input to keys, across reads. `feed` returns the keys a read completes; when it holds an
 * unfinished sequence, `pending` is true and the caller calls `flush` after `ESCAPE_WAIT_MS`.
 */
export class KeyDecoder {
  private held = '';

  get pending(): boolean {
    return this.held.length > 0;
  }

  feed(chunk: string): Key[] {
    const text = this.held + chunk;
    this.held = '';
    const start = text.lastIndexOf('\u001b');
    if (start >= 0 && unfinished(text.slice(start))) {
      this.held = text.slice(start);
      return decodeKeys(text.slice(0, start));
    }
    return decodeKeys(text);
  }

  /** The wait ran out: whatever is held is typed as it stands (a lone Esc is the Esc key). */
  flush(): Key[] {
    const text = this.held;
    this.held = '';
    return decodeKeys(text);
  }
}

/** Decode complete input. Unknown escape sequences are dropped, never typed as text. */
export function decodeKeys(chunk: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < chunk.length) {
    const c = chunk[i]!;
    if (c === '\u001b') {
      const mouse = /^\u001b\[<(\d+);(\d+);(\d+)([Mm])/.exec(chunk.slice(i));
      if (mouse) {
        const b = Number(mouse[1]);
        if (b === 64 || b === 65) keys.push({ kind: 'wheel', up: b === 64 });
        else if (mouse[4] === 'M' && (b & 3) === 0)
          keys.push({ kind: 'click', x: Number(mouse[2]) - 1, y: Number(mouse[3]) - 1 });
        i += mouse[0].length;
        continue;
      }
      const seq = Object.keys(SEQUENCES).find((s) => chunk.startsWith(s, i));
      if (seq) {
        keys.push(SEQUENCES[seq]!);
        i += seq.length;
        continue;
      }
      const other = /^\u001b\[[0-9;?]*[A-Za-z~]/.exec(chunk.slice(i));
      if (other) {
        i += other[0].length;
        continue;
      }
      keys.push({ kind: 'escape' });
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') keys.push({ kind: 'enter' });
    else if (c === '\u007f' || c === '\b') keys.push({ kind: 'backspace' });
    else if (c === '\t') keys.push({ kind: 'tab' });
    else if (c === '\u0003') keys.push({ kind: 'ctrl-c' });
    else if (c === '\u000c') keys.push({ kind: 'ctrl-l' });
    else if (c >= ' ') keys.push({ kind: 'char', ch: c });
    i++;
  }
  return keys;
}
