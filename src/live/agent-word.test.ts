import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE } from '../runtime/dir.js';
import { tempDir } from '../test-support/corpus.js';
import { agentsMaySpeak } from './agent-word.js';

let t: { dir: string; cleanup: () => void };
beforeEach(() => {
  t = tempDir('cctop-agent-word-');
});
afterEach(() => t.cleanup());

const env = () => ({ HOME: join(t.dir, 'home'), CCTOP_RUNTIME_DIR: join(t.dir, 'run') });

describe('whether a one-shot command reads the agents’ word on states', () => {
  it('does not, on a machine where no hook ran and no Claude Code session runs', () => {
    mkdirSync(join(t.dir, 'home', '.claude', 'sessions'), { recursive: true });
    writeFileSync(join(t.dir, 'home', '.claude', 'sessions', '123.abc.key'), 'x');
    expect(agentsMaySpeak(env())).toBe(false);
  });

  it('does once a hook has written to the journal', () => {
    mkdirSync(join(t.dir, 'run'), { recursive: true });
    writeFileSync(join(t.dir, 'run', JOURNAL_FILE), '{}\n');
    expect(agentsMaySpeak(env())).toBe(true);
  });

  it('does while Claude Code lists a running session', () => {
    mkdirSync(join(t.dir, 'home', '.claude', 'sessions'), { recursive: true });
    writeFileSync(join(t.dir, 'home', '.claude', 'sessions', '4242.json'), '{}');
    expect(agentsMaySpeak(env())).toBe(true);
  });
});
