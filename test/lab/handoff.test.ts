/**
 * A handoff, end to end with the real CLIs in the lab: Claude Code runs a scripted task, `cctop
 * handoff --to codex` writes a brief of that session and prints the command that starts Codex on it,
 * and Codex (`codex exec`, with the printed first message) reads the brief. The lab server's ledger
 * shows Codex sent the brief's text back to the model as the output of the command that read it.
 *
 * The printed message is cctop's own sentence pointing at the file; the lab's model needs the
 * `[lab:handoff]` marker to know its script (read `cctop-handoff.md`), so the test puts the brief
 * there with `--out` and adds the marker after the sentence.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../src/model/document.js';
import { claudeRecipe } from '../../src/test-support/lab/agents/claude.js';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { agentBin, LAB_RUN_TIMEOUT_MS, makeHome, PINS, runAgent } from '../../src/test-support/lab/agents.js';
import { cctopJson, cctopRead } from '../../src/test-support/lab/check.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const installed = agentBin('claude') !== null && agentBin('codex') !== null;
const why = `${PINS.claude.package}@${PINS.claude.version} and ${PINS.codex.package}@${PINS.codex.version} must be installed (npm run agents)`;
if (!installed) console.warn(`lab: handoff skipped: ${why}`);

interface Handoff {
  brief: string;
  to: string;
  cwd: string;
  command: string[];
}

describe.skipIf(!installed)(
  `a handoff from Claude Code to Codex in the lab${installed ? '' : ` (skipped: ${why})`}`,
  () => {
    let server: LabServer;
    let root: string;
    beforeAll(async () => {
      server = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-handoff-'));
    });
    afterAll(async () => {
      await server?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('a brief from a Claude Code session starts a Codex session that receives it', {
      timeout: 3 * LAB_RUN_TIMEOUT_MS,
    }, async () => {
      // Claude Code runs the `call` script: one command, then an answer.
      const claude = makeHome(join(root, 'claude'));
      claudeRecipe.setup(claude.home, server.url);
      const ran = await runAgent(claudeRecipe, claude, server.url, {
        prompt: promptFor('call'),
        resume: null,
        permission: 'allow',
      });
      expect(ran.code, ran.stderr.slice(-2000)).toBe(0);
      const sessions = cctopJson(claude.home).sessions.filter(
        (s: SessionDocument['sessions'][number]) => s.provider === 'claude',
      );
      expect(sessions).toHaveLength(1);
      const id = sessions[0]!.id;

      // The handoff, as a user runs it, with the brief where the lab's model reads it.
      const h = cctopRead<Handoff>(claude.home, [
        'handoff',
        id,
        '--to',
        'codex',
        '--out',
        join(claude.cwd, 'cctop-handoff.md'),
      ]);
      expect(h.to).toBe('codex');
      expect(h.cwd).toBe(claude.cwd);
      expect(h.command[0]).toBe('codex');
      const brief = readFileSync(h.brief, 'utf8');
      expect(brief).toContain('You are taking over a task from a Claude Code session');
      expect(brief).toContain('[lab:call] Follow the lab script call.');
      expect(brief).toContain('- `echo lab-call-ok`');
      expect(brief).toContain('The command printed lab-call-ok.');

      // Codex, in the session's directory, with the printed first message.
      const codex = { home: makeHome(join(root, 'codex')).home, cwd: h.cwd };
      codexRecipe.setup(codex.home, server.url);
      const from = server.ledger.length;
      const started = await runAgent(codexRecipe, codex, server.url, {
        prompt: `${h.command[1]} [lab:handoff]`,
        resume: null,
        permission: 'allow',
      });
      expect(started.code, started.stderr.slice(-2000)).toBe(0);
      const steps = server.ledger.slice(from).filter((e) => e.script === 'handoff' && e.api === 'responses');
      expect(steps.map((e) => e.step)).toEqual([0, 1]);
      expect(JSON.stringify(steps[0]!.calls.map((c) => c.args))).toContain('cat cctop-handoff.md');
      // What the model was told the command printed: the brief, word for word.
      const told = steps[1]!.results.join('\n');
      expect(told).toContain('# Handoff brief: ');
      expect(told).toContain('[lab:call] Follow the lab script call.');
      expect(told).toContain('The command printed lab-call-ok.');

      // And Codex's own transcript has the handoff as its first message.
      const after = cctopJson(codex.home).sessions.filter(
        (s: SessionDocument['sessions'][number]) => s.provider === 'codex',
      );
      expect(after).toHaveLength(1);
      expect(after[0]!.project).toBe(claude.cwd);
    });
  },
);
