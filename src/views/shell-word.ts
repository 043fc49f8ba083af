/**
 * Words for a POSIX shell, for the commands cctop shows and copies (resume a session, hand one over
 * to another harness): they are pasted into a shell, so each word must reach the program as it is.
 *
 * Not here: making a word safe to print (`terminal-text.ts`, which callers apply first), or refusing
 * a word that reads as an option (quoting does not stop a program from taking `--x` as a flag).
 */

/**
 * One word: as it is when it holds nothing a shell reads specially, else in single quotes, where
 * nothing is special (`$(…)` inside double quotes would run when the command is pasted).
 */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
