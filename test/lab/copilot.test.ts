/** GitHub Copilot CLI, the real CLI, in its bring-your-own-key mode through the lab (see conformance.ts). */
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import { conformance } from './conformance.js';

conformance(copilotRecipe, {
  // Every usage record carries `cacheWriteTokens` (0 over Chat Completions) and `reasoningTokens`.
  records: { cacheWrite: true, reasoning: 'server' },
  keep: ['.copilot/session-state'],
  titled: true,
  resumes: true,
  // The prompt and the turn's start are in events.jsonl before the model answers.
  whileHeld: 'working',
});
