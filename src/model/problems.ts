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
  | 'cache'; // the index could not be used

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
}

/** A user-facing explanation of an fs error code. */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
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
    default:
      return code ? `${code}: ${(err as Error).message}` : String((err as Error)?.message ?? err);
  }
}
