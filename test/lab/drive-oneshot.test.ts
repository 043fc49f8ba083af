/**
 * A real driven run in the commands that do not stay: `cctop/drive` runs the real Claude Code CLI in
 * the lab (against the stand-in model server) with `approvals: 'remote'`, so the run waits on its one
 * shell call with nobody in this program answering. While it waits, `cctop --list` (the built CLI,
 * as a user runs it) marks its session `▲d`, `cctop --json` carries the run, and the session's
 * conversation and report read from the file the run is writing; once it is answered and ends, the
 * list shows an ordinary session again.
 *
 * Skipped, saying why, without the pinned Claude Code.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event, Run } from '../../src/drive/index.js';
import { stream } from '../../src/drive/index.js';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionDocument } from '../../src/model/document.js';
import { announcedRuns } from '../../src/runtime/run-files.js';
import { REPO } from '../../src/test-support/corpus.js';
import { claudeRecipe as recipe } from '../../src/test-support/lab/agents/claude.js';
import { agentBin, labEnv, makeHome, PINS } from '../../src/test-support/lab/agents.js';
import { type LabServer, startLabServer } from '../../src/test-support/lab/server.js';
import { promptFor } from './conformance.js';

const pin = PINS.claude;
const bin = agentBin('claude');
const why = `${pin.package}@${pin.version} is not installed (npm run agents)`;
const CLI = join(REPO, 'dist', 'cli.js');
/** A command run to its end; a non-zero exit rejects, with its stderr. */
const run = promisify(execFile);

describe.runIf(bin !== null)(
  `a driven ${pin.package}@${pin.version} run in cctop --list and --json${bin ? '' : ` (skipped: ${why})`}`,
  () => {
    let lab: LabServer;
    let root: string;
    let runtime: string;
    let home = '';
    let cwd = '';

    beforeAll(async () => {
      lab = await startLabServer();
      root = mkdtempSync(join(tmpdir(), 'cctop-lab-oneshot-'));
      runtime = mkdtempSync(join(tmpdir(), 'cctop-lab-oneshot-run-'));
      const where = makeHome(join(root, 'a'));
      home = where.home;
      cwd = where.cwd;
    }, 60_000);
    afterAll(async () => {
      lab?.release();
      await lab?.close();
      for (const d of [root, runtime]) if (d) rmSync(d, { recursive: true, force: true });
    });

    /**
     * `cctop <args>` over the run's home and runtime directory, as a user at a 120-column pipe runs
     * it: another process, while this one (the driver) goes on touching its run's file.
     */
    const cctop = async (...args: string[]): Promise<string> => {
      const r = await run(process.execPath, [CLI, ...args], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          TZ: 'UTC',
          COLUMNS: '120',
          NO_COLOR: '1',
          CCTOP_CACHE_DIR: join(home, '.cctop-cache'),
          CCTOP_RUNTIME_DIR: runtime,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      return r.stdout;
    };

    /**
     * The list with its two clock cells shown as `<ago>` and `<dur>` (LAST: seconds since the
     * session's newest record, which moves while the test runs; DUR: how long the agent took to get
     * to its question, minutes on a loaded machine); every other character is as printed.
     */
    const listed = async (): Promise<string[]> =>
      (await cctop('--list'))
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(/^( {2}\S\S? +[0-9a-f]{4}) +\S+ +\S+ /, '$1 <ago> <dur> '));

    it('while it waits on an approval the list marks it ▲d and its conversation reads; once it ends it is ordinary', async () => {
      const driven: Run = stream({
        agent: 'claude',
        prompt: promptFor('approve'),
        bin: bin!,
        cwd,
        model: recipe.model,
        permission: 'default',
        approvals: 'remote',
        announce: { program: 'lab-bot' },
        parentEnv: { ...process.env, CCTOP_RUNTIME_DIR: runtime },
        env: 'minimal',
        setEnv: { ...labEnv(home, lab.url), ...recipe.env(home, lab.url), IS_SANDBOX: '1' },
        timeoutMs: 120_000,
      });
      const events: Event[] = [];
      const read = (async () => {
        for await (const e of driven) events.push(e);
      })();
      const env = { CCTOP_RUNTIME_DIR: runtime };
      const waiting = () => announcedRuns(env).find((r) => r.program === 'lab-bot' && r.pending.length > 0);
      await expect.poll(waiting, { timeout: 60_000, interval: 200 }).toBeTruthy();
      const asked = waiting()!;
      const session = asked.session!;
      const id = session.slice(0, 4);

      expect(await listed()).toEqual([
        'Claude Code — 1 session · $0.04 est.',
        '     ID   LAST   DUR    COST TOKENS CTX% MODEL         PROJECT · TITLE',
        `  ▲d ${id} <ago> <dur>   $0.04    23k  14% sonnet-4.5    work · [lab:approve] Follow the lab script approve.`,
        '',
        '● working  ▲ waiting on you  ✖ error  · idle  ─ unknown  CTX%: of compact point',
        "h: state said by the agent's hooks  r: by its own session list  d: by its driver  unmarked: inferred (cctop explain ID)",
      ]);
      const doc = JSON.parse(await cctop('--json')) as SessionDocument;
      expect(
        doc.sessions.map((s) => [
          s.id,
          s.state,
          s.stateSource,
          s.stateDetail?.split(':')[0],
          s.driven?.program,
        ]),
      ).toEqual([[session, 'waiting', 'driven', 'Bash', 'lab-bot']]);
      // The run's own row is the session on disk: its conversation reads now, while the run waits.
      const chat = JSON.parse(await cctop('chat', session, '--json')) as Conversation;
      expect(chat.turns.length).toBeGreaterThan(0);
      expect(JSON.parse(await cctop('report', session, '--json')).session.id).toBe(session);

      driven.respond(asked.pending[0]!.id, { behavior: 'allow' });
      await read;
      expect((await driven.outcome).stop.kind).toBe('completed');
      expect(announcedRuns(env)).toEqual([]);
      const after = await listed();
      expect(after[2]).toMatch(new RegExp(`^ {2}· {2}${id} <ago> <dur> `));
      expect(after.join('\n')).not.toContain('d: by its driver');
    }, 180_000);
  },
);
