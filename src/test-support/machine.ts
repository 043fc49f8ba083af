/**
 * A whole machine's agent history in a throw-away `$HOME`, every harness cctop reads, for the tests
 * that need them side by side: one harness's reader failing must cost only its own sessions
 * (`providers/fence.test.ts`), and damaged files must cost only themselves (`test/robustness.test.ts`).
 *
 * The files are real where real ones exist: the lab fixtures (`lab/fixtures/<agent>/<case>/home`,
 * written by the real CLIs against the lab's stand-in model, always in the repository) for Claude
 * Code, Codex, Gemini CLI, Qwen Code, Copilot CLI and Pi. OpenCode's lab runs wrote its database; its
 * older `storage/` tree is written here from those same rows, in the layout OpenCode 1.1 used. Cursor,
 * Devin and Windsurf have no recording: their files are written as their provider tests write them,
 * from the documented layouts.
 *
 * What this does not hold: OpenCode's database itself (hostile databases are `sqlite.ts`'s tests).
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { memberPath } from '../providers/sqlite.js';
import { FakeHome, REPO } from './corpus.js';

const LAB = join(REPO, 'lab', 'fixtures');

/** Every file the history holds is this old: finished sessions, not live ones. */
export const HISTORY_MTIME_MS = Date.parse('2026-10-01T00:00:00Z');

/**
 * How each harness's history is written, keyed by every id in `PROVIDERS`: a harness added there does
 * not compile until it says here how its files are made, so it is in the robustness suites at once.
 * A harness recorded in the lab names the directory under `$HOME` its `home` trees hold.
 */
const HISTORY = {
  claude: { recorded: '.claude' },
  codex: { recorded: '.codex' },
  gemini: { recorded: '.gemini' },
  qwen: { recorded: '.qwen' },
  copilot: { recorded: '.copilot' },
  pi: { recorded: '.pi' },
  opencode: { write: (m: Machine) => m.opencodeStorage() },
  cursor: { write: (m: Machine) => m.cursor() },
  devin: { write: (m: Machine) => m.devin() },
  windsurf: { write: (m: Machine) => m.windsurf() },
  // Built from each format as documented (none of these CLIs runs in the lab): `lab/fixtures/sources/`.
  amp: { write: (m: Machine) => m.source('amp', /\.json$/) },
  droid: { write: (m: Machine) => m.source('droid', /\.settings\.json$/) },
  codebuff: { write: (m: Machine) => m.source('codebuff', /chat-messages\.json$/) },
  hermes: { write: (m: Machine) => m.source('hermes', /\.db$/) },
  goose: { write: (m: Machine) => m.source('goose', /\.db$/) },
  kilo: { write: (m: Machine) => m.source('kilo', /\.db$/) },
  antigravity: { write: (m: Machine) => m.source('antigravity', /\.db$/) },
  kimi: { write: (m: Machine) => m.source('kimi', /wire\.jsonl$/) },
  openclaw: { write: (m: Machine) => m.source('openclaw', /\.jsonl$/) },
  grok: { write: (m: Machine) => m.source('grok', /updates\.jsonl$/) },
  zcode: { write: (m: Machine) => m.source('zcode', /\.sqlite$/) },
} satisfies Record<ProviderId, { recorded: string } | { write: (m: Machine) => void }>;

/** One file (or database value) a harness reads, as the robustness suite may damage it. */
export interface HistoryFile {
  provider: ProviderId;
  /** The file on disk (for Windsurf, the database holding the chat data). */
  path: string;
  /**
   * The source the scan reads it as: itself for a transcript, the session file for an OpenCode
   * message or part, the database member for a Devin trajectory, the database for Windsurf (whose
   * sources are `<database>#<tab>`).
   */
  owner: string;
  /** Set for a value inside a database: rewrite it there, not the file's bytes. */
  windsurfKey?: string;
}

export class Machine {
  readonly home = new FakeHome();
  /** The transcripts and documents the harnesses read, by harness. */
  readonly files = new Map<ProviderId, HistoryFile[]>();

  get env(): Record<string, string> {
    return this.home.env;
  }

  cleanup(): void {
    this.home.cleanup();
  }

  /** Build the history of the given harnesses (all of them by default). */
  static build(providers: readonly ProviderId[] = ALL): Machine {
    const m = new Machine();
    for (const p of providers) {
      const how: { recorded: string } | { write: (m: Machine) => void } = HISTORY[p];
      if ('recorded' in how) m.recorded(p, how.recorded);
      else how.write(m);
    }
    m.age(m.home.dir);
    return m;
  }

  private add(provider: ProviderId, f: Omit<HistoryFile, 'provider'>): void {
    const list = this.files.get(provider) ?? [];
    list.push({ provider, ...f });
    this.files.set(provider, list);
  }

  private recorded(provider: ProviderId, root: string): void {
    const dir = join(LAB, provider);
    for (const c of readdirSync(dir).sort()) cpSync(join(dir, c, 'home'), this.home.dir, { recursive: true });
    for (const path of walk(join(this.home.dir, root)))
      if (path.endsWith('.jsonl')) this.add(provider, { path, owner: path });
  }

  /**
   * A source's fixture home (`lab/fixtures/sources/<id>/home`), copied in whole; the files matching
   * `damageable` are the ones the robustness suite may damage (a database file owns every session in it).
   */
  source(provider: ProviderId, damageable: RegExp): void {
    const from = join(LAB, 'sources', provider, 'home');
    cpSync(from, this.home.dir, { recursive: true });
    for (const path of walk(from)) {
      const copy = join(this.home.dir, path.slice(from.length + 1));
      if (damageable.test(copy)) this.add(provider, { path: copy, owner: copy });
    }
  }

  /** OpenCode's `storage/` tree (1.1), one session per lab run, from the rows its database holds. */
  opencodeStorage(): void {
    const storage = join(this.home.dir, '.local', 'share', 'opencode', 'storage');
    for (const c of readdirSync(join(LAB, 'opencode')).sort()) {
      // Opened from a copy: even a read-only open of a WAL database writes `-shm` beside it, and the
      // recordings in the repository are not to be touched.
      const copy = join(this.home.dir, `opencode-${c}.db`);
      copyFileSync(join(LAB, 'opencode', c, 'home', '.local', 'share', 'opencode', 'opencode.db'), copy);
      const db = new Database(copy, { readonly: true });
      const owners = new Map<string, string>();
      try {
        const sessions = db.prepare('SELECT * FROM session').all() as Record<string, unknown>[];
        for (const s of sessions) {
          const id = String(s.id);
          const file = join(storage, 'session', String(s.project_id), `${id}.json`);
          this.json(file, {
            id,
            version: s.version,
            projectID: s.project_id,
            directory: s.directory,
            parentID: s.parent_id,
            title: s.title,
            time: { created: s.time_created, updated: s.time_updated },
          });
          this.add('opencode', { path: file, owner: file });
          owners.set(id, file);
        }
        const messages = db.prepare('SELECT * FROM message').all() as Record<string, unknown>[];
        for (const r of messages) {
          const file = join(storage, 'message', String(r.session_id), `${String(r.id)}.json`);
          this.json(file, { id: r.id, sessionID: r.session_id, ...JSON.parse(String(r.data)) });
          this.add('opencode', { path: file, owner: owners.get(String(r.session_id)) ?? file });
        }
        const parts = db.prepare('SELECT * FROM part').all() as Record<string, unknown>[];
        for (const r of parts) {
          const file = join(storage, 'part', String(r.message_id), `${String(r.id)}.json`);
          this.json(file, {
            id: r.id,
            messageID: r.message_id,
            sessionID: r.session_id,
            ...JSON.parse(String(r.data)),
          });
          this.add('opencode', { path: file, owner: owners.get(String(r.session_id)) ?? file });
        }
      } finally {
        db.close();
        for (const suffix of ['', '-shm', '-wal']) rmSync(`${copy}${suffix}`, { force: true });
      }
    }
  }

  /** Cursor's agent transcripts, in the shape of the corpus's (`role` + `message.content` blocks). */
  cursor(): void {
    const dir = join(this.home.dir, '.cursor', 'projects', 'home-me-app', 'agent-transcripts');
    for (const [id, command] of [
      ['c1', 'ls -la'],
      ['c2', 'git status'],
      ['c3', 'npm test'],
    ] as const) {
      const path = join(dir, id, `${id}.jsonl`);
      this.lines(path, [
        {
          role: 'user',
          message: { content: [{ type: 'text', text: `<user_query>\nrun ${command}\n</user_query>` }] },
        },
        {
          role: 'assistant',
          message: {
            content: [
              { type: 'text', text: 'Running it.' },
              { type: 'tool_use', name: 'Shell', input: { command, description: 'Run it' } },
            ],
          },
        },
        { role: 'assistant', message: { content: [{ type: 'text', text: 'Done: nothing to report.' }] } },
      ]);
      this.add('cursor', { path, owner: path });
    }
  }

  /** Devin's session database and ATIF trajectories (the layout `devin.test.ts` writes). */
  devin(): void {
    const dir = join(this.home.dir, '.local', 'share', 'devin', 'cli');
    mkdirSync(join(dir, 'transcripts'), { recursive: true });
    const db = new Database(join(dir, 'sessions.db'));
    try {
      db.exec(`
        CREATE TABLE sessions (id TEXT PRIMARY KEY, working_directory TEXT, model TEXT, created_at INTEGER,
          last_activity_at INTEGER, title TEXT, hidden INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE tool_call_state (session_id TEXT, tool_call_id TEXT, tool_call_update_json TEXT,
          PRIMARY KEY (session_id, tool_call_id));`);
      const t0 = HISTORY_MTIME_MS / 1000 - 3600;
      for (const id of ['dv1', 'dv2', 'dv3']) {
        db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          id,
          '/work/app',
          'SWE-1.5',
          t0,
          t0 + 60,
          `Session ${id}`,
          0,
        );
        db.prepare('INSERT INTO tool_call_state VALUES (?, ?, ?)').run(
          id,
          `${id}-t1`,
          '{"status":"completed"}',
        );
        const path = join(dir, 'transcripts', `${id}.json`);
        this.json(path, {
          schema_version: 'ATIF-v1.7',
          session_id: id,
          agent: { name: 'devin', version: '1.0', model_name: 'SWE-1.5' },
          steps: [
            { step_id: 1, source: 'user', timestamp: '2026-09-30T23:00:10Z', message: 'make the tests pass' },
            {
              step_id: 2,
              source: 'agent',
              timestamp: '2026-09-30T23:00:20Z',
              model_name: 'SWE-1.5',
              message: 'working on it',
              tool_calls: [
                { tool_call_id: `${id}-t1`, function_name: 'run_command', arguments: { cmd: 'npm test' } },
              ],
              metrics: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 800 },
            },
          ],
        });
        this.add('devin', { path, owner: memberPath(join(dir, 'sessions.db'), id) });
      }
    } finally {
      db.close();
    }
  }

  /** Windsurf's workspace databases (the layout `windsurf.test.ts` writes): chat data as a JSON value. */
  windsurf(): void {
    for (const ws of ['ws1', 'ws2']) {
      const dir = join(this.home.dir, '.config', 'Windsurf', 'User', 'workspaceStorage', ws);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'workspace.json'), JSON.stringify({ folder: `file:///work/${ws}` }));
      const path = join(dir, 'state.vscdb');
      const db = new Database(path);
      try {
        db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
        const chat = {
          tabs: [
            {
              tabId: `${ws}-tab-1`,
              chatTitle: 'Refactor the auth module',
              bubbles: [
                { type: 'user', text: 'refactor auth' },
                { type: 'ai', toolCalls: [{ name: 'read_file' }, { name: 'edit_file' }] },
              ],
            },
            { tabId: `${ws}-tab-2`, chatTitle: 'Explain the build', bubbles: [] },
          ],
        };
        db.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('cascade.chatdata', JSON.stringify(chat));
      } finally {
        db.close();
      }
      this.add('windsurf', { path, owner: path, windsurfKey: 'cascade.chatdata' });
    }
  }

  private json(path: string, value: unknown): void {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
  }

  private lines(path: string, records: unknown[]): void {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  /** Every file gets the same old mtime: finished sessions, ordered by path alone. */
  private age(dir: string): void {
    for (const path of walk(dir)) utimesSync(path, HISTORY_MTIME_MS / 1000, HISTORY_MTIME_MS / 1000);
  }
}

/** Every harness, in the tables' order: the one list, not a copy of it. */
export const ALL: readonly ProviderId[] = PROVIDERS;

function* walk(dir: string): Generator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}
