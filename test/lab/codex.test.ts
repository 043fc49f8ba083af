/** Codex, the real CLI, through the lab (see conformance.ts). */
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { conformance } from './conformance.js';

conformance(codexRecipe, {
  records: { cacheWrite: false, reasoning: 'server' },
  keep: ['.codex/sessions'],
  titled: true,
  resumes: true,
  whileHeld: 'working',
});
