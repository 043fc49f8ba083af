/**
 * GitHub Copilot CLI in prompt mode (`copilot -p … --output-format json`), in its bring-your-own-key
 * mode: `COPILOT_PROVIDER_BASE_URL` points it at the lab's Chat Completions endpoint (its default
 * wire API for an `openai` provider) with a made-up key, and `COPILOT_MODEL` names the model. BYOK
 * needs no GitHub login, and `COPILOT_OFFLINE` keeps it from trying GitHub at all: without it 1.0.102
 * still answers, but only after retrying `api.github.com` through the proxy for about 90 seconds.
 *
 * The executable unpacks its bundled package (about 235 MB) into `~/.cache/copilot/pkg` on first
 * start. `COPILOT_PKG_CACHE_HOME` puts that in one folder beside the pinned installs, so each fresh
 * home does not unpack it again; it holds the CLI's own code, nothing of a session.
 */
import { join } from 'node:path';
import { agentsDir, idInOutput, type Recipe } from '../agents.js';

export const copilotRecipe: Recipe = {
  id: 'copilot',
  model: 'gpt-4.1',
  setup() {},
  env: (_home, serverUrl) => ({
    COPILOT_PROVIDER_BASE_URL: `${serverUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: 'lab-key',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_OFFLINE: 'true',
    COPILOT_PKG_CACHE_HOME: join(agentsDir(), 'copilot-pkg-cache'),
  }),
  args: (p) => [
    '-p',
    p.prompt,
    '--output-format',
    'json',
    ...(p.permission === 'allow' ? ['--allow-all-tools'] : []),
    ...(p.resume ? [`--resume=${p.resume}`] : []),
  ],
  // The last line, `{"type":"result","sessionId":…}`, closes the JSONL stream.
  sessionId: (stdout) => idInOutput(stdout, 'sessionId', (r) => r.type === 'result'),
};
