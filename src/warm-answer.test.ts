/**
 * The warm document prints `cctop --json` only when it can prove the full route would print the same
 * bytes: after a refresh, to the byte (the next hour's windows printed anew), and otherwise it
 * declines, saying why: a variable or a file the scope was worked out from changed, a config file
 * appeared, an agent spoke through its hooks, the file is damaged, or an agent process runs that
 * could be running one of the sessions (a real process, found in the real process table).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJournal } from './hooks/journal.js';
import { KEEP_AFTER_QUIET_MS } from './index/keep-one-shot.js';
import { buildVersion } from './index/version.js';
import { docKept } from './index/warm-doc.js';
import { DOC_FILE, DOC_PREFIX_BYTES } from './index/warm-doc-layout.js';
import { AgentStates } from './live/agent-state.js';
import { processAnnotator } from './live/annotate.js';
import { ProcessTable } from './live/processes.js';
import { cacheDir } from './paths.js';
import { gatherQuota } from './quota/gather.js';
import { runtimeDir } from './runtime/dir.js';
import { claudeResponse, FakeHome, jsonl } from './test-support/corpus.js';
import { snapshotIn } from './test-support/snapshot.js';
import { PLAIN } from './views/cli/color.js';
import { renderList } from './views/cli/list.js';
import { docIds, keepDaily, type WarmJson, warmDaily, warmJson } from './warm-answer.js';
import { warmList } from './warm-list.js';

/** Before this machine booted, so no process on it can have started before these sessions. */
const NOON = Date.parse('2020-06-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the warm document', () => {
  let home: FakeHome;
  let env: Record<string, string>;
  let proc: string;
  beforeEach(() => {
    home = new FakeHome();
    // The runtime directory (the hook journal) inside the test's home, not the machine's.
    env = { ...home.env, CCTOP_RUNTIME_DIR: join(home.dir, 'run') };
    // A process table with no process in it.
    proc = join(home.dir, 'proc');
    mkdirSync(proc);
  });
  afterEach(() => home.cleanup());

  /** The full route's answer at `nowMs` (processes looked at, none found), as `cctop --json` prints it. */
  const full = async (nowMs: number, e: Record<string, string> = env) =>
    `${(await indexed(nowMs, e)).json({ collisions: [] }).toString()}\n`;
  /** The full route's snapshot, once the document it keeps is written (with a config file, after its reader loads). */
  const indexed = async (nowMs: number, e: Record<string, string> = env) => {
    const s = await snapshotIn(e, {
      nowMs,
      annotate: processAnnotator(new ProcessTable(() => []), () => nowMs),
    });
    await docKept();
    return s;
  };
  /** The full route's `cctop --list` at `nowMs`, `COLUMNS` wide and not on a terminal, as it prints it. */
  const fullList = async (nowMs: number, columns: number) => {
    const doc = (await indexed(nowMs)).document;
    const quota = gatherQuota({
      env,
      sessions: doc.sessions,
      usage: [],
      providers: null,
      nowMs,
      startOfTodayMs: nowMs,
    });
    return `${renderList(doc, columns, PLAIN, nowMs, quota.quota).join('\n')}\n`;
  };
  const list = async (nowMs: number, columns: number) => {
    const r = await warmList({
      env: { ...env, COLUMNS: String(columns) },
      nowMs,
      proc,
      build: async () => buildVersion(),
      isTty: false,
      columns: undefined,
    });
    return r.kind === 'answered' ? Buffer.concat(r.parts).toString() : r.reason;
  };
  const doc = (nowMs: number, o: { env?: Record<string, string>; proc?: string } = {}) =>
    warmJson({ env: o.env ?? env, nowMs, proc: o.proc ?? proc, build: async () => buildVersion() });
  const reason = (r: WarmJson) => (r.kind === 'declined' ? r.reason : 'answered');
  /** A Claude transcript whose last response was written at `at`, with its file time then too. */
  const transcript = (name: string, at: number) =>
    home.write(home.claudeFile('-w', name), claudeResponse(name, 5, new Date(at).toISOString(), 2), at);

  it('prints, after a refresh, the bytes the full route prints, and the next hour its windows anew', async () => {
    // Spent within the windows, and long before them.
    const t = NOON + HOUR - 30_000;
    transcript('recent.jsonl', t - 10 * 60_000);
    transcript('old.jsonl', t - 40 * DAY);
    expect(reason(await doc(t))).toBe('no warm document is kept');
    await full(t);
    const same = await doc(t + 1000);
    expect(same.kind === 'answered' && Buffer.concat(same.parts).toString()).toBe(await full(t + 1000));
    // 13:00:10: another hour, still within a minute of the last full look.
    const next = await doc(t + 40_000);
    expect(next.kind === 'answered' && Buffer.concat(next.parts).toString()).toBe(await full(t + 40_000));
  });

  it('lays --list out as the full route does, for the width given, its ages read now, across the hour', async () => {
    const t = NOON + HOUR - 30_000;
    transcript('recent.jsonl', t - 10 * 60_000 - 30_000);
    transcript('old.jsonl', t - 40 * DAY);
    await full(t);
    const printed: string[] = [];
    for (const [at, columns] of [
      [t + 1000, 80],
      [t + 1000, 160],
      [t + 1000, 30],
      [t + 40_000, 120],
    ] as const) {
      const warm = await list(at, columns);
      expect(warm).toContain('Claude Code — 2 sessions');
      printed.push(warm);
      // The full route refreshes: taken after, so the warm answer is judged by the document before it.
      expect(warm, `${columns} columns at ${at - t}`).toBe(await fullList(at, columns));
    }
    // The LAST cell is read at the moment asked: 10m became 11m.
    expect(printed[0]).toMatch(/ 10m /);
    expect(printed[3]).toMatch(/ 11m /);
  });

  it('declines --list while a driver announces a run, and prints it again once none does', async () => {
    transcript('a.jsonl', NOON - HOUR);
    await full(NOON);
    const runs = join(home.dir, 'run', 'runs');
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, '01234567-89ab-cdef-0123-456789abcdef.json'), '{}');
    expect(await list(NOON, 80)).toBe('a driver announced a run');
    // `--json` marks no run in its sessions from this file: the agent's process is what it looks for.
    expect(reason(await doc(NOON))).toBe('answered');
  });

  it('works a state out when it is asked for: a call left running lapses to idle within the minute', async () => {
    // Claude Code 2.1.x's shape, trimmed: a Bash call with no result yet, 110 s before the refresh.
    const t = NOON;
    const at = t - 110_000;
    const call = jsonl({
      type: 'assistant',
      sessionId: 'w',
      cwd: '/w',
      uuid: 'a-1',
      timestamp: new Date(at).toISOString(),
      requestId: 'req_1',
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 40 },
      },
    });
    home.write(home.claudeFile('-w', 'w.jsonl'), call, at);
    const then = await full(t);
    expect(then).toContain('"state":"working"');
    // 30 s on, past the two minutes a call no process runs stays working.
    const later = await doc(t + 30_000);
    expect(later.kind === 'answered' && Buffer.concat(later.parts).toString()).toBe(await full(t + 30_000));
    expect(later.kind === 'answered' && Buffer.concat(later.parts).toString()).toContain('"state":"idle"');
    // The list's mark lapses with it: idle, not the working mark it had when the document was written.
    const rows = await list(t + 30_000, 100);
    expect(rows).toBe(await fullList(t + 30_000, 100));
    expect(rows).toContain('  ·');
    expect(rows).not.toContain('●  ');
  });

  it('declines when a variable, a settings file or a config file it was worked out from changes', async () => {
    transcript('a.jsonl', NOON - HOUR);
    await full(NOON);
    expect(reason(await doc(NOON, { env: { ...env, CLAUDE_CONFIG_DIR: join(home.dir, 'other') } }))).toBe(
      '$CLAUDE_CONFIG_DIR changed',
    );
    const settings = join(home.dir, '.claude', 'settings.json');
    writeFileSync(settings, '{}');
    expect(reason(await doc(NOON))).toBe(`${settings} changed`);
    await full(NOON);
    expect(reason(await doc(NOON))).toBe('answered');
    const config = join(home.dir, '.config', 'cctop', 'config.toml');
    mkdirSync(join(home.dir, '.config', 'cctop'), { recursive: true });
    writeFileSync(config, '');
    expect(reason(await doc(NOON))).toBe(`${config} exists`);
  });

  it('serves a user with a config file that names nothing these answers read, keyed on its bytes', async () => {
    transcript('a.jsonl', NOON - HOUR);
    const config = join(home.dir, '.config', 'cctop', 'config.toml');
    mkdirSync(join(home.dir, '.config', 'cctop'), { recursive: true });
    const alerts = '[alerts]\nstall_minutes = 12\n\n[notify]\ndesktop = false\n';
    writeFileSync(config, alerts);
    await full(NOON);
    const warm = await doc(NOON + 1000);
    expect(reason(warm)).toBe('answered');
    expect(warm.kind === 'answered' && Buffer.concat(warm.parts).toString()).toBe(await full(NOON + 1000));
    expect(await list(NOON + 2000, 100)).toBe(await fullList(NOON + 2000, 100));
    // The same length, another byte: another file.
    writeFileSync(config, alerts.replace('12', '13'));
    expect(reason(await doc(NOON + 3000))).toBe(`${config} changed`);
    await full(NOON + 3000);
    expect(reason(await doc(NOON + 4000))).toBe('answered');
    // What the answers read (other machines, a budget under the list, a zone for the reports): no
    // document is kept for it, and the one before it declines.
    for (const [i, setting] of [
      'hosts = ["devbox"]\n',
      '[[budget]]\nperiod = "day"\nusd = 50\n',
      '[reports]\ntimezone = "Asia/Tokyo"\n',
      'no_such_key = 1\n',
    ].entries()) {
      writeFileSync(config, setting);
      await full(NOON + 5000 + i * 1000);
      expect(reason(await doc(NOON + 5500 + i * 1000)), setting).toBe(`${config} changed`);
    }
  });

  it('declines when the hook journal moved since it was written, or when the file is damaged', async () => {
    transcript('a.jsonl', NOON - HOUR);
    await full(NOON);
    mkdirSync(join(home.dir, 'run'));
    writeFileSync(join(home.dir, 'run', 'hooks.jsonl'), '{}\n');
    expect(reason(await doc(NOON))).toBe('the hook journal changed since the document was written');
    writeFileSync(join(home.dir, 'run', 'hooks.jsonl'), '');
    expect(reason(await doc(NOON))).toBe('answered');
    const path = join(cacheDir(env), DOC_FILE);
    const bytes = readFileSync(path);
    const at = bytes.length - 3;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 1, at);
    writeFileSync(path, bytes);
    // Its time is when the last full look was: kept, so only the damage is news.
    utimesSync(path, NOON / 1000, NOON / 1000);
    expect(reason(await doc(NOON))).toBe('the warm document is damaged');
    // `--list` reads the head alone: damage in the body it does not print leaves it as it was; in
    // the head, it declines too.
    expect(await list(NOON, 80)).toBe(await fullList(NOON, 80));
    const again = readFileSync(path);
    again.writeUInt8(again.readUInt8(DOC_PREFIX_BYTES + 3) ^ 1, DOC_PREFIX_BYTES + 3);
    writeFileSync(path, again);
    utimesSync(path, NOON / 1000, NOON / 1000);
    expect(await list(NOON, 80)).toBe('the warm document is damaged');
  });

  describe("for a user whose agents have cctop's hooks installed", () => {
    /** A hook event of Claude Code on session `a` at `at`, appended to the journal as `cctop hook` appends it. */
    const hook = (event: string, at: number) => {
      const dir = runtimeDir(env);
      if (dir.kind !== 'ok') throw new Error(dir.why);
      appendJournal(dir.path, {
        v: 1,
        at,
        agent: 'claude',
        event,
        session: 'a',
        cwd: '/w',
        notification: null,
        tool: null,
        permissionMode: 'default',
        transcript: null,
        input: null,
        ppid: 4242,
      });
    };
    /** The full route as a one-shot runs it with hooks: the journal's word on each session applied. */
    const fullHooked = async (nowMs: number) => {
      const hooked = AgentStates.fromJournal(env, () => nowMs).overlay;
      const s = await snapshotIn(env, {
        nowMs,
        annotate: processAnnotator(new ProcessTable(() => []), () => nowMs, hooked),
      });
      await docKept();
      return `${s.json({ collisions: [] }).toString()}\n`;
    };

    it("prints the full route's bytes from the document once the journal's word has lapsed, unchanged since", async () => {
      transcript('a.jsonl', NOON - HOUR);
      // The session's turn ended 20 minutes ago, as its Stop hook said: past a hook's lapse.
      hook('UserPromptSubmit', NOON - 50 * 60_000);
      hook('Stop', NOON - 20 * 60_000);
      await fullHooked(NOON);
      const warm = await doc(NOON + 1000);
      expect(reason(warm)).toBe('answered');
      expect(warm.kind === 'answered' && Buffer.concat(warm.parts).toString()).toBe(
        await fullHooked(NOON + 1000),
      );
      expect(await list(NOON + 2000, 100)).toBe(await fullList(NOON + 2000, 100));
    });

    it("leaves the answer to the full route while a hook's word still counts, and serves it once it lapsed", async () => {
      transcript('a.jsonl', NOON - HOUR);
      hook('Stop', NOON - 5 * 60_000);
      const said = await fullHooked(NOON);
      // The full route shows what the hook said: the document, printed as if none spoke, could not.
      expect(said).toContain('"stateSource":"hook"');
      expect(reason(await doc(NOON + 1000))).toBe("an agent's hook spoke less than 15 minutes ago");
      // Ten minutes on, fifteen after the hook: the full route's next look writes a document that may be printed.
      const later = NOON + 10 * 60_000 + 1000;
      await fullHooked(later);
      const warm = await doc(later + 1000);
      expect(warm.kind === 'answered' && Buffer.concat(warm.parts).toString()).toBe(
        await fullHooked(later + 1000),
      );
      expect(await fullHooked(later + 1000)).not.toContain('"stateSource":"hook"');
    });

    it('declines once a hook appends to the journal after the document was written', async () => {
      transcript('a.jsonl', NOON - HOUR);
      hook('Stop', NOON - 20 * 60_000);
      await fullHooked(NOON);
      expect(reason(await doc(NOON + 1000))).toBe('answered');
      hook('UserPromptSubmit', NOON + 1500);
      expect(reason(await doc(NOON + 2000))).toBe('the hook journal changed since the document was written');
      expect(await fullHooked(NOON + 2000)).toContain('"stateSource":"hook"');
    });
  });

  it('serves a kept daily report only beside the document it was printed against, dated now', async () => {
    transcript('a.jsonl', NOON - HOUR);
    await full(NOON);
    const o = (nowMs: number) => ({ env, nowMs, build: async () => buildVersion() });
    const report = Buffer.from('{\n  "report": "daily",\n  "generatedAt": "then",\n  "periods": []\n}\n');
    await keepDaily(o(NOON), 'another document', report);
    expect(reason(await warmDaily(o(NOON)))).toBe('no daily report is kept');
    await keepDaily(o(NOON), docIds(env), report);
    const kept = await warmDaily(o(NOON + 1000));
    expect(kept.kind === 'answered' && Buffer.concat(kept.parts).toString()).toBe(
      `{\n  "report": "daily",\n  "generatedAt": "${new Date(NOON + 1000).toISOString()}",\n  "periods": []\n}\n`,
    );
    // A new transcript: the next full look once it is quiet writes another document, which the
    // report was not printed against.
    transcript('b.jsonl', NOON + 1000);
    const quiet = NOON + 1000 + KEEP_AFTER_QUIET_MS;
    await full(quiet);
    expect(reason(await warmDaily(o(quiet)))).toBe('the daily report kept is of another document');
  });

  describe('with an agent process running (its command line names claude)', () => {
    let agent: ChildProcess;
    let startedMs: number;
    beforeEach(async () => {
      startedMs = Date.now();
      agent = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'claude'], { stdio: 'ignore' });
      await new Promise((resolve) => agent.once('spawn', resolve));
    });
    afterEach(() => {
      agent.kill();
    });

    it('still prints when every session was last active before the process started', async () => {
      transcript('a.jsonl', NOON - HOUR);
      await full(NOON);
      expect(reason(await doc(NOON + 1000, { proc: '/proc' }))).toBe('answered');
    });

    it('leaves the answer to the full route when the process could be running a session', async () => {
      // Written after the process started: it may be the one writing it.
      const t = startedMs + 60_000;
      transcript('a.jsonl', t);
      await full(t + 1000);
      expect(reason(await doc(t + 2000, { proc: '/proc' }))).toBe(
        'an agent process may run one of the sessions',
      );
    });
  });
});
