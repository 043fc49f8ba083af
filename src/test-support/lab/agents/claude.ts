/**
 * Claude Code in print mode (`claude -p`), pointed at the lab by `ANTHROPIC_BASE_URL` with a made-up
 * API key. It needs no config file: a fresh home and an API key skip onboarding and login.
 */
import { idInOutput, type Recipe } from '../agents.js';

export const claudeRecipe: Recipe = {
  id: 'claude',
  model: 'claude-sonnet-4-5',
  setup() {},
  env: (_home, serverUrl) => ({ ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: 'lab-key' }),
  args: (p) => [
    '-p',
    p.prompt,
    '--output-format',
    'json',
    '--model',
    'claude-sonnet-4-5',
    ...(p.permission === 'allow' ? ['--allowedTools', 'Bash'] : []),
    ...(p.resume ? ['--resume', p.resume] : []),
  ],
  sessionId: (stdout) => idInOutput(stdout, 'session_id'),
};
