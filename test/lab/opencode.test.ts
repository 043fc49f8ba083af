/** OpenCode, the real CLI, through the lab (see conformance.ts). */
import {
  checkpointOpenCode,
  OPENCODE_DATABASE,
  opencodeRecipe,
} from '../../src/test-support/lab/agents/opencode.js';
import { conformance } from './conformance.js';

conformance(opencodeRecipe, {
  // Each `step-finish` part keeps the request's input, cache read and write (0: Chat Completions
  // reports no writes) and reasoning as the server reported them.
  records: { cacheWrite: true, reasoning: 'server' },
  // Every session is in one SQLite database; the fixture keeps it checkpointed (see `settle`).
  keep: [OPENCODE_DATABASE],
  // OpenCode titles a session by asking the model (a side request, recorded in no session), not
  // with the first prompt.
  titled: false,
  // `--session <id>` adds the second prompt to the same session.
  resumes: true,
  // The user message is written before the model is asked.
  whileHeld: 'working',
  settle: checkpointOpenCode,
  slow: true,
});
