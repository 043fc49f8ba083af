/**
 * What `cli.js` asks of the warm document, as one module: `cctop --json`, `--list` and
 * `daily --json` answered from it, and keeping `daily --json`'s answer beside it. The build bundles
 * this module with everything it imports into one chunk (`dist/cli-bundle/warm.js`, made by
 * `scripts/cli-bundle.mjs`), which the rest of the bundle imports too: a warm answer then loads two
 * files instead of two dozen modules, each of which node 20 resolves, reads, compiles and links on
 * its own. Here only to name that set once; what each answer does is in `warm-answer.ts` and
 * `warm-list.ts`.
 */
export { docIds, keepDaily, warmDaily, warmJson } from './warm-answer.js';
export { warmList } from './warm-list.js';
