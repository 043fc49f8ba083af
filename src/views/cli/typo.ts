/**
 * The "did you mean" behind every unknown command, action or flag: how far a mistyped word is from
 * each word cctop knows, and which one it most likely meant.
 *
 * Kept apart from `help.ts`, which holds what the helps say. Not here: the wording of any "unknown
 * ..." message, which each command writes with its own words.
 */

/**
 * Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: "reprot" is one swap
 * from "report", where plain Levenshtein would count two.
 */
export function editDistance(a: string, b: string): number {
  // d[i][j]: edits between the first i characters of a and the first j of b.
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The farthest a typo may be from what was meant: one edit in a short word, two in a longer one. Any
 * more and "did you mean" guesses at words that merely share letters (`cctop fix` is not `exec`).
 */
const MAX_TYPO_EDITS = 2;
const ONE_EDIT_UP_TO_CHARS = 4;

/** The candidate `word` is most likely a typo of, or null when none is close. */
export function closest(word: string, candidates: readonly string[]): string | null {
  const allowed = word.length <= ONE_EDIT_UP_TO_CHARS ? 1 : MAX_TYPO_EDITS;
  let best: string | null = null;
  let bestDistance = allowed + 1;
  for (const c of candidates) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}
