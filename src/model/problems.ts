/**
 * Things that went wrong while reading, kept as data: the run goes on, `cctop doctor` and the
 * document's `problems` say what was skipped and why.
 */

export type ProblemKind =
  | 'unreadable' // a root, directory or file we may not read
  | 'vanished' // listed, then gone before we read it
  | 'bad-lines' // lines that are not JSON objects
  | 'oversized-lines' // lines over the line bound, skipped
  | 'partial-line' // a last line without its newline, left unread
  | 'inconsistent-usage' // token counts that do not add up
  | 'unpriced-model' // usage on a model the price catalogue does not know
  | 'untimed-requests' // requests without a timestamp: in their session, in no day or block
  | 'cache' // the index could not be used
  | 'session-note'; // a session that was read, where one lookup beside it failed (its figure fell back)

export interface Problem {
  kind: ProblemKind;
  /** The file or directory concerned, or the model for `unpriced-model`. */
  path: string;
  /** How many (lines, requests, tokens), where counting makes sense. */
  count: number | null;
  detail: string;
}

/** Problems kept per scan; past this they are counted, not listed (a broken tree can have thousands). */
export const MAX_PROBLEMS = 500;

export class ProblemLog {
  readonly list: Problem[] = [];
  dropped = 0;

  add(p: Problem): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(p);
    else this.dropped++;
  }

  /** Take in everything `other` logged, as if it had been logged here, in its order. */
  absorb(other: ProblemLog): void {
    for (const p of other.list) this.add(p);
    this.dropped += other.dropped;
  }
}

/**
 * The longest error message a problem repeats. Messages of the errors a read meets (the system's,
 * SQLite's, ours) are a line or two; a path the system quotes back can be long (4 KiB on Linux).
 * What this protects: a problem is listed by `doctor` and served on `/api/sessions`, 500 of them.
 */
export const MAX_PROBLEM_DETAIL_CHARS = 300;

/**
 * A user-facing explanation of why a file or directory could not be read: the error's code and what
 * to do about it. Never the file's content: a JSON syntax error quotes the text it choked on, so it
 * is told as "not valid JSON" and nothing more (a transcript may be a link to a password file).
 */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException | null;
  const code = e?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `${code}: permission denied (run cctop as the user who runs the agent)`;
    case 'ENOENT':
      return 'ENOENT: it disappeared while being read';
    case 'ELOOP':
      return 'ELOOP: a symbolic link loop';
    case 'ENOTDIR':
      return 'ENOTDIR: not a directory';
    case 'EISDIR':
      return 'EISDIR: a directory where a file was expected';
    case 'ENAMETOOLONG':
      return 'ENAMETOOLONG: a name in the path is longer than the file system allows';
    case 'ERR_INVALID_ARG_VALUE':
      // Node's word for a path holding a NUL byte, which no file can be named with.
      return 'the path holds a NUL byte, which no file name can';
  }
  if (err instanceof SyntaxError) return 'not valid JSON';
  const message = oneLine(err instanceof Error ? err.message : String(err));
  // The system's messages start with their code already ("ENOSPC: no space left on device, …").
  const named =
    code && !message.startsWith(code)
      ? `${code}: ${message}`
      : !code && err instanceof Error
        ? `${err.name}: ${message}`
        : message;
  return named.length <= MAX_PROBLEM_DETAIL_CHARS
    ? named
    : `${named.slice(0, MAX_PROBLEM_DETAIL_CHARS - 1)}…`;
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
