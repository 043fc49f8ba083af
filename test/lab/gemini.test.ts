/** Gemini CLI, the real CLI, through the lab (see conformance.ts). */
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { conformance } from './conformance.js';

conformance(geminiRecipe, {
  // Each `gemini` message keeps `tokens.thoughts` as the server reported them; no cache writes.
  records: { cacheWrite: false, reasoning: 'server' },
  keep: ['.gemini/tmp'],
  titled: true,
  // `--resume <uuid>` appends to the same `session-*.jsonl`.
  resumes: true,
  // The prompt is written to the chat before the model is asked.
  whileHeld: 'working',
});
