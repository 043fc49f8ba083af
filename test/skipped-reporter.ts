/**
 * Ends `npm test` with every skipped test, grouped by the reason it was skipped, and fails the run
 * when a skip gives no reason: a test that skips silently is coverage lost without anyone noticing.
 *
 * A reason is written into the name of the test or of a suite around it, as `… (skipped: <reason>;
 * <command that removes it>)` (see `src/test-support/skips.ts`). A test skipped at run time with
 * `ctx.skip(note)` may give it as its note instead. `describe.runIf(x)` skips too when x is false, so
 * its name needs the reason as much as `skipIf`'s does.
 *
 * Not here: deciding what to skip (each suite does, from what the machine has).
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** `(skipped: reason)` at the end of a name, or anywhere inside it (a suite may add more after it). */
const REASON = /\(skipped: ((?:[^()]|\([^()]*\))*)\)/;

/** The reason a skipped test gives: in its own name, its note, or the nearest suite's name that has one. */
export function reasonOf(t: TestCase): string | null {
  const own = REASON.exec(t.name)?.[1];
  if (own !== undefined) return own;
  const result = t.result();
  if (result.state === 'skipped' && result.note) return result.note;
  for (let p = t.parent; p.type === 'suite'; p = p.parent) {
    const why = REASON.exec(p.name)?.[1];
    if (why !== undefined) return why;
  }
  return null;
}

export default class SkippedReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, number>();
    const silent: string[] = [];
    let total = 0;
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        total++;
        const why = reasonOf(t);
        if (why === null) silent.push(`${m.moduleId.replace(`${process.cwd()}/`, '')} > ${t.fullName}`);
        else byReason.set(why, (byReason.get(why) ?? 0) + 1);
      }
    }
    if (total === 0) {
      console.log('\nskipped: nothing');
      return;
    }
    console.log(`\nskipped: ${total} test(s)`);
    for (const [why, n] of [...byReason].sort((a, b) => b[1] - a[1]))
      console.log(`  ${String(n).padStart(4)} × ${why}`);
    if (silent.length > 0) {
      console.log(
        `\n${silent.length} test(s) skipped without saying why (name the reason and the command that removes it, as "… (skipped: <reason>; <command>)"):`,
      );
      for (const name of silent) console.log(`  ${name}`);
      // Vitest has already set the exit code from the tests; a silent skip fails the run on top of it.
      process.exitCode = 1;
    }
  }
}
