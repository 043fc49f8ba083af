import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wholeFileChat } from '../test-support/gemini-chat.js';
import { type Outcome, streamTruth } from './events.js';
import { settle } from './settle.js';
import { scriptedOutcome } from './test-support/scripted-run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-settle-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The whole-file chat written where Gemini CLI keeps chats under `GEMINI_DIR`. */
function chatOnDisk(): string {
  const chat = wholeFileChat();
  const chats = join(dir, 'tmp', 'project', 'chats');
  mkdirSync(chats, { recursive: true });
  writeFileSync(join(chats, 'session-2025-10-01T10-00-abcd.json'), JSON.stringify(chat));
  return chat.sessionId;
}

const geminiOutcome = (session: string, model: string | null): Outcome => {
  const o = scriptedOutcome();
  const usage = { ...o.usage, input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null };
  return { ...o, agent: 'gemini', session, model, usage, truth: streamTruth(model, []) };
};

describe('settling a run from its session file', () => {
  it('a verdict the stream left open comes from the file; where both spoke and disagree, it is a problem', () => {
    const session = chatOnDisk();
    const o = settle({
      agent: 'gemini',
      acpProgram: null,
      outcome: geminiOutcome(session, 'gemini-2.5-flash'),
      env: { GEMINI_DIR: dir },
      startedMs: 0,
      results: [
        { id: 'run_shell_command-1', ok: null },
        { id: 'list_directory-1', ok: true },
        { id: 'not-in-the-file', ok: true },
      ],
    });
    expect(o.truth.file).toBe(join(dir, 'tmp', 'project', 'chats', 'session-2025-10-01T10-00-abcd.json'));
    expect(o.truth.results).toEqual([
      { id: 'run_shell_command-1', name: 'run_shell_command', ok: false, from: 'file', exitCode: 1 },
      { id: 'list_directory-1', name: 'list_directory', ok: true, from: 'stream', exitCode: null },
      { id: 'not-in-the-file', name: null, ok: true, from: 'stream', exitCode: null },
    ]);
    expect(o.truth.problems).toEqual([
      { kind: 'result', id: 'list_directory-1', stream: true, file: false },
      { kind: 'model', stream: 'gemini-2.5-flash', file: 'gemini-2.5-pro' },
    ]);
    // The model the stream named stands; the disagreement is said, not resolved.
    expect(o.model).toBe('gemini-2.5-flash');
  });

  it('tokens and a model the stream never carried come from the file, and say so', () => {
    const session = chatOnDisk();
    const o = settle({
      agent: 'gemini',
      acpProgram: null,
      outcome: geminiOutcome(session, null),
      env: { GEMINI_DIR: dir },
      startedMs: 0,
      results: [],
    });
    // The chat's figures as its fixture works them out by hand.
    expect(o.usage).toMatchObject({ input: 14_050, cacheRead: 7_000, output: 260, reasoning: 158 });
    expect(o.truth.usageFromFile).toEqual(['input', 'output', 'cacheRead', 'reasoning']);
    expect(o.model).toBe('gemini-2.5-pro');
    expect(o.truth.model).toBe('file');
    expect(o.truth.problems).toEqual([]);
  });

  it('a run whose session has no file, or of an agent cctop reads no files of, keeps the stream’s word', () => {
    chatOnDisk();
    const missing = geminiOutcome('no-such-session', 'gemini-2.5-pro');
    const env = { GEMINI_DIR: dir };
    expect(
      settle({ agent: 'gemini', acpProgram: null, outcome: missing, env, startedMs: 0, results: [] }),
    ).toBe(missing);
    const goose = { ...missing, agent: 'acp' as const };
    expect(
      settle({ agent: 'acp', acpProgram: 'goose', outcome: goose, env, startedMs: 0, results: [] }),
    ).toBe(goose);
  });
});
