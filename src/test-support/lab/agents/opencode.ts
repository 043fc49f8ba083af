/**
 * OpenCode (`opencode run --format json`), pointed at the lab by a provider of its own in
 * `$XDG_CONFIG_HOME/opencode/opencode.json`: the bundled `@ai-sdk/openai-compatible` package with the
 * server as its `baseURL` (Chat Completions) and a key written in the config, so no login is involved.
 *
 * Two things OpenCode fetches on its own are kept from starting rather than left to be refused, as
 * refused they still cost a run seconds: the models.dev catalogue (`OPENCODE_DISABLE_MODELS_FETCH`; the
 * lab's provider and model are declared here) and the `@opencode-ai/plugin` package it installs into
 * every config folder. The install is skipped when the folder has a `node_modules` and a lock file
 * naming the package, the state a finished install leaves; no plugin is loaded either way.
 *
 * Its title generation is left on: it asks the same model with no tools (the server ledgers it as
 * `aux`) and keeps that answer as the session's title, recording no tokens for it in the session.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { idInOutput, type Recipe } from '../agents.js';

/** Where OpenCode 1.2+ keeps every session: one SQLite database under `$XDG_DATA_HOME/opencode`. */
export const OPENCODE_DATABASE = join('.local', 'share', 'opencode', 'opencode.db');

/**
 * Move what OpenCode left in the database's write-ahead log into the database itself. OpenCode exits
 * with its rows still in `opencode.db-wal` (over a megabyte after one run, when the database file may
 * be a single empty page); checkpointed, the database alone holds the session in a quarter of that.
 */
export function checkpointOpenCode(home: string): void {
  const db = new Database(join(home, OPENCODE_DATABASE));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    // The last connection closing removes the emptied log.
    db.close();
  }
}

export const opencodeRecipe: Recipe = {
  id: 'opencode',
  model: 'lab-model',
  setup(home, serverUrl) {
    const dir = join(home, '.config', 'opencode');
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: {
        lab: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Lab',
          options: { baseURL: `${serverUrl}/v1`, apiKey: 'lab-key' },
          models: { 'lab-model': { name: 'Lab model' } },
        },
      },
      model: 'lab/lab-model',
      autoupdate: false,
      share: 'disabled',
    };
    writeFileSync(join(dir, 'opencode.json'), `${JSON.stringify(config, null, 2)}\n`);
    const lock = { packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } };
    writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock)}\n`);
  },
  env: () => ({ OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' }),
  args: (p) => [
    'run',
    '--format',
    'json',
    // OpenCode's own default lets the build agent run shell commands; `--auto` approves what it would ask.
    ...(p.permission === 'allow' ? ['--auto'] : []),
    ...(p.resume ? ['--session', p.resume] : []),
    // One word an argument: `opencode run` joins its arguments with spaces, and quotes any argument
    // that holds a space, quotes the model then sees and the session keeps as the prompt.
    ...p.prompt.split(' '),
  ],
  sessionId: (stdout) => idInOutput(stdout, 'sessionID'),
};
