/**
 * `cctop statusline` reached as an ES module: `cli.js statusline` (a status line installed as
 * `node …/dist/cli.js statusline`, and the tests and benchmarks that run `cli.js`) comes here, and
 * `node dist/statusline/bin.js [--format …]` runs it too. The package's own `cctop` goes to
 * `launch.cts` without any ES module, which is cheaper still; both run the same line the same way.
 */
import launch from './launch.cjs';

await launch.runLine(process.argv.slice(2));
