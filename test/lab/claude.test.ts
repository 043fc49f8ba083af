/** Claude Code, the real CLI, through the lab (see conformance.ts). */
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { conformance } from './conformance.js';

conformance(claudeRecipe, {
  records: { cacheWrite: true, reasoning: 'own' },
  keep: ['.claude/projects'],
  titled: true,
  resumes: true,
  whileHeld: 'working',
});
