/** Pi, the real CLI, through the lab (see conformance.ts). */
import { piRecipe } from '../../src/test-support/lab/agents/pi.js';
import { conformance } from './conformance.js';

conformance(piRecipe, {
  // Each assistant message keeps `usage.input` (uncached), `cacheRead`, `cacheWrite` (0 here) and
  // `output` with reasoning inside it: Pi keeps no reasoning count of its own.
  records: { cacheWrite: true, reasoning: 'none' },
  keep: ['.pi/agent/sessions'],
  // Pi names a session by its first prompt (`session_info` only when the user names it).
  titled: true,
  // `--session <id>` appends to the same session file.
  resumes: true,
  whileHeld: 'absent',
});
