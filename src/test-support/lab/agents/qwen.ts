/**
 * Qwen Code in headless mode (`qwen "<prompt>" -o json`), pointed at the lab's Chat Completions route
 * by its OpenAI-compatible settings in the environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
 * `OPENAI_MODEL`) and `--auth-type openai`, so no login is involved. The prompt is positional: `-p`
 * still works in 0.24 but is deprecated.
 *
 * `settings.json` turns managed auto-memory off: left on, Qwen Code asks the model once more after
 * every turn, in the background, to extract memories. That request carries the conversation and the
 * shell tool, so the lab cannot tell it from the script's next step, and Qwen Code writes it nowhere
 * in the chat (it is not the session's request, and cctop does not count it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idInOutput, type Recipe } from '../agents.js';

export const qwenRecipe: Recipe = {
  id: 'qwen',
  model: 'qwen3-coder-plus',
  setup(home) {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    const settings = { memory: { enableManagedAutoMemory: false } };
    writeFileSync(join(home, '.qwen', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  },
  env: (_home, serverUrl) => ({
    OPENAI_BASE_URL: `${serverUrl}/v1`,
    OPENAI_API_KEY: 'lab-key',
    OPENAI_MODEL: 'qwen3-coder-plus',
  }),
  args: (p) => [
    p.prompt,
    '--output-format',
    'json',
    '--auth-type',
    'openai',
    '--model',
    'qwen3-coder-plus',
    ...(p.permission === 'allow' ? ['--approval-mode', 'yolo'] : []),
    ...(p.resume ? ['--resume', p.resume] : []),
  ],
  /** The output is one JSON array of events, each carrying the `session_id`. */
  // One JSON array of events; the first that names the session.
  sessionId: (stdout) => idInOutput(stdout, 'session_id'),
};
