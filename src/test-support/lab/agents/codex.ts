/**
 * Codex (`codex exec --json`), pointed at the lab by a model provider of its own in `config.toml`
 * (Responses API over HTTP, the key from an environment variable), so no login is involved.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idInOutput, type Recipe } from '../agents.js';

export const codexRecipe: Recipe = {
  id: 'codex',
  model: 'gpt-5-codex',
  setup(home, serverUrl) {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      [
        'model = "gpt-5-codex"',
        'model_provider = "lab"',
        '',
        '[model_providers.lab]',
        'name = "lab"',
        `base_url = "${serverUrl}/v1"`,
        'env_key = "LAB_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
  },
  env: () => ({ LAB_API_KEY: 'lab-key' }),
  args: (p) => [
    'exec',
    ...(p.resume ? ['resume', p.resume] : []),
    '--json',
    '--skip-git-repo-check',
    ...(p.permission === 'allow' ? ['--dangerously-bypass-approvals-and-sandbox'] : []),
    p.prompt,
  ],
  sessionId: (stdout) => idInOutput(stdout, 'thread_id', (r) => r.type === 'thread.started'),
};
