/**
 * `cctop exec` against the real Claude Code and Codex CLIs (`npm run agents`) where nothing answers:
 * no login, no network. The exit code is the one `exec --help` names, and a run that waits says
 * why while it waits. Each agent gets a fresh `$HOME` and a proxy on a closed port, so nothing
 * reaches the network or the user's files.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/test-support/cli-run.js';
import { tempDir } from '../../src/test-support/corpus.js';
import { agentBin } from '../../src/test-support/lab/agents.js';
import { EXIT } from '../../src/views/cli/exec.js';

/** A port nothing listens on (discard, never served here): every request is refused at once. */
const CLOSED_PROXY = 'http://127.0.0.1:9';
/** The run's own limit: far past Codex's first "Reconnecting" (under a second), far short of its minute. */
const RUN_TIMEOUT = '8s';

const claude = agentBin('claude');
const codex = agentBin('codex');
const NO_AGENT = 'the pinned agent CLI is not installed; npm run agents';

let home: { dir: string; cleanup: () => void };
beforeEach(() => {
  home = tempDir('cctop-exec-offline-');
});
afterEach(() => home.cleanup());

/** The minimal environment of a fresh machine: a PATH for node, an empty home, a dead proxy. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home.dir,
    XDG_STATE_HOME: join(home.dir, 'state'),
    XDG_CONFIG_HOME: join(home.dir, 'config'),
    HTTPS_PROXY: CLOSED_PROXY,
    HTTP_PROXY: CLOSED_PROXY,
    ...extra,
  };
}

describe('cctop exec where nothing answers', () => {
  it.skipIf(claude === null)(
    `claude without a login exits 5, the code exec --help gives "not logged in"${claude === null ? ` (skipped: ${NO_AGENT})` : ''}`,
    async () => {
      const r = await runCli(['exec', 'claude', '--bin', claude!, '-C', home.dir, 'hi'], env());
      expect(r.err).toContain('Not logged in');
      expect(r.err).toContain('run `claude` once and log in with /login, or set ANTHROPIC_API_KEY');
      expect(r.code).toBe(EXIT.notAuthenticated);
      expect(EXIT.notAuthenticated).toBe(5);
    },
  );

  it.skipIf(codex === null)(
    `codex with no network says it is reconnecting before the run ends${codex === null ? ` (skipped: ${NO_AGENT})` : ''}`,
    async () => {
      const r = await runCli(
        ['exec', 'codex', '--bin', codex!, '-C', home.dir, '--timeout', RUN_TIMEOUT, 'hi'],
        env({ OPENAI_API_KEY: 'sk-test-not-a-key' }),
      );
      expect(r.out).toMatch(/^! Reconnecting\.\.\. \d\/\d \(.*Connection refused/m);
      expect(r.code).toBe(EXIT.timeout);
    },
  );
});
