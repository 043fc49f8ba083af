/** Qwen Code, the real CLI, through the lab (see conformance.ts). */
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import { conformance } from './conformance.js';

conformance(qwenRecipe, {
  // An assistant record's `usageMetadata` keeps the server's reasoning count; no cache writes.
  records: { cacheWrite: false, reasoning: 'server' },
  keep: ['.qwen/projects'],
  titled: true,
  // `--resume <session id>` appends to the same `<session id>.jsonl`.
  resumes: true,
  // The prompt is written to the chat before the model is asked.
  whileHeld: 'working',
});
