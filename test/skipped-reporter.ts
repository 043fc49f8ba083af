/**
 * Ends `npm test` by naming every test that was skipped, so nothing is skipped silently. A suite that
 * skips for a missing part says why in its name (`… (skipped: tmux is not installed (apt-get install
 * tmux))`), and that reason is printed once per suite with the number of tests it covered; a test
 * that says why in its own name is listed with its reason.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SkippedReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const bySuite = new Map<string, number>();
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        const suite = t.parent.type === 'suite' ? t.parent.fullName : m.moduleId;
        // A test that says why it skips (`… (skipped: reason)`) is listed with its reason.
        const why = /\(skipped: (.*)\)$/.exec(t.name)?.[1];
        const key = why === undefined ? suite : `${suite}: ${why}`;
        bySuite.set(key, (bySuite.get(key) ?? 0) + 1);
      }
    }
    if (bySuite.size === 0) {
      console.log('\nskipped: nothing');
      return;
    }
    console.log(`\nskipped: ${[...bySuite.values()].reduce((a, b) => a + b, 0)} test(s)`);
    for (const [suite, n] of bySuite) console.log(`  ${n} × ${suite}`);
  }
}
