/**
 * Pi (`pi -p --mode json`), pointed at the lab by a provider of its own in `~/.pi/agent/models.json`
 * (Chat Completions, `openai-completions`, the key written in the file), so no login is involved.
 * `PI_OFFLINE` turns off its startup network checks (version and package updates, telemetry).
 *
 * Pi asks no permission for its tools: a run with `permission: 'ask'` is the same run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idInOutput, type Recipe } from '../agents.js';

export const piRecipe: Recipe = {
  id: 'pi',
  model: 'lab-model',
  setup(home, serverUrl) {
    const dir = join(home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    const models = {
      providers: {
        lab: {
          baseUrl: `${serverUrl}/v1`,
          api: 'openai-completions',
          apiKey: 'lab-key',
          models: [{ id: 'lab-model' }],
        },
      },
    };
    writeFileSync(join(dir, 'models.json'), `${JSON.stringify(models, null, 2)}\n`);
  },
  env: () => ({ PI_OFFLINE: '1' }),
  args: (p) => [
    '-p',
    '--mode',
    'json',
    '--provider',
    'lab',
    '--model',
    'lab-model',
    ...(p.resume ? ['--session', p.resume] : []),
    p.prompt,
  ],
  // The first line is the session header: `{"type":"session","id":…}`.
  sessionId: (stdout) => idInOutput(stdout, 'id', (r) => r.type === 'session'),
};
