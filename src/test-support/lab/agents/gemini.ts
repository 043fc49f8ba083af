/**
 * Gemini CLI in headless mode (`gemini -p … -o json`), pointed at the lab by `GOOGLE_GEMINI_BASE_URL`
 * with a made-up `GEMINI_API_KEY`. The auth type is chosen in `settings.json`: without it, a base URL
 * in the environment selects the `gateway` type, which headless mode refuses ("Invalid auth method
 * selected"). `--skip-trust` trusts the fresh working directory, or `--yolo` is turned back to
 * `default` and every call is refused.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idInOutput, type Recipe } from '../agents.js';

export const geminiRecipe: Recipe = {
  id: 'gemini',
  model: 'gemini-2.5-flash',
  setup(home) {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const settings = { security: { auth: { selectedType: 'gemini-api-key' } } };
    writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  },
  env: (_home, serverUrl) => ({ GEMINI_API_KEY: 'lab-key', GOOGLE_GEMINI_BASE_URL: serverUrl }),
  args: (p) => [
    '-p',
    p.prompt,
    '--output-format',
    'json',
    '--model',
    'gemini-2.5-flash',
    '--skip-trust',
    ...(p.permission === 'allow' ? ['--approval-mode', 'yolo'] : []),
    ...(p.resume ? ['--resume', p.resume] : []),
  ],
  sessionId: (stdout) => idInOutput(stdout, 'session_id'),
};
