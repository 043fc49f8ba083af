/**
 * Keeping the search index current: a transcript that grew is read on from its last person's
 * message and ends up exactly as a first read of the whole file would leave it; one that shrank or
 * was replaced is read again whole; a new transcript is found, a removed one forgotten; and a budget
 * that runs out leaves the rest for the next search, counted. Transcripts are the lab's recordings of
 * Claude Code 2.1.328 and Codex 0.169 (`lab/fixtures/<agent>/call`), grown by a second round of the
 * same records.
 */
import {
  appendFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheDir } from '../paths.js';
import { FakeHome, REPO, tempDir } from '../test-support/corpus.js';
import { type CatchUpOptions, catchUp, watchList } from './catch-up.js';
import { SearchDb } from './store.js';

const PROMPT = '[lab:call] Follow the lab script call.';

function find(dir: string, ext: string): string {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'memory') {
      const hit = find(p, ext);
      if (hit !== '') return hit;
    } else if (e.name.endsWith(ext)) return p;
  }
  return '';
}

/** The lines of a recorded round from the person's prompt on, asking about something else. */
function secondRound(path: string, n: number): string {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const from = lines.findIndex((l) => l.includes(PROMPT));
  return `${lines
    .slice(from)
    .map((l) =>
      l
        .replaceAll(PROMPT, `[lab:call] Now ask about zebras, round ${n}.`)
        .replaceAll('lab-call-ok', `zebra${n}-call-ok`)
        .replaceAll('call_lab_1', `call_lab_z${n}`),
    )
    .join('\n')}\n`;
}

let home: FakeHome;
let db: SearchDb;
const files: Record<'claude' | 'codex', string> = { claude: '', codex: '' };
const all: CatchUpOptions = { env: {}, deadline: Number.POSITIVE_INFINITY, clock: () => 0 };

function open(env: Record<string, string>): SearchDb {
  const o = SearchDb.open(cacheDir(env));
  if (o.kind !== 'open') throw new Error(o.why);
  return o.db;
}

beforeEach(() => {
  home = new FakeHome();
  for (const agent of ['claude', 'codex'] as const) {
    cpSync(join(REPO, 'lab', 'fixtures', agent, 'call', 'home'), home.dir, { recursive: true });
    files[agent] = find(join(home.dir, agent === 'claude' ? '.claude' : '.codex'), '.jsonl');
  }
  all.env = home.env;
  db = open(home.env);
});
afterEach(() => {
  db.close();
  home.cleanup();
});

/** The rows a first read of the transcript as it is now gives, in a fresh index. */
async function coldRows(path: string): Promise<ReturnType<SearchDb['rowsOf']>> {
  const t = tempDir();
  const env = { ...home.env, CCTOP_CACHE_DIR: t.dir };
  const fresh = open(env);
  try {
    await catchUp(fresh, { ...all, env });
    return fresh.rowsOf(path);
  } finally {
    fresh.close();
    t.cleanup();
  }
}

describe('a grown transcript', () => {
  for (const agent of ['claude', 'codex'] as const) {
    it(`is read on from its last person’s message, and holds what a first read would (${agent})`, async () => {
      const path = files[agent];
      const first = await catchUp(db, all);
      expect(first.listed).toBe(true);
      const before = db.rowsOf(path);
      expect(before.some((r) => r.text.includes('lab-call-ok'))).toBe(true);
      // The record that gives the person's turn (Claude writes the prompt in a queue record first).
      const lines = readFileSync(path, 'utf8').split('\n');
      const at = lines.findIndex((l) => l.includes(PROMPT) && /"(type|role)":"user"/.test(l));
      const promptLine = Buffer.byteLength(
        lines
          .slice(0, at)
          .map((l) => `${l}\n`)
          .join(''),
      );
      appendFileSync(path, secondRound(path, 1));

      const grown = await catchUp(db, all);
      expect(grown.listed).toBe(false);
      expect(grown.read.files).toBe(1);
      // From the line of the first round's prompt, not from the top: what is before it is not read again.
      expect(promptLine).toBeGreaterThan(0);
      expect(grown.read.bytes).toBe(readFileSync(path).length - promptLine);

      const after = db.rowsOf(path);
      expect(after).toEqual(await coldRows(path));
      expect(after.slice(0, before.length)).toEqual(before);
      const zebra = after.find((r) => r.role === 'user' && r.text.includes('zebras'));
      expect(zebra?.seq).toBeGreaterThan(Math.max(...before.map((r) => r.seq ?? 0)));
    });
  }

  it('that shrank is read again whole, and holds only what is left', async () => {
    const path = files.claude;
    await catchUp(db, all);
    const before = db.rowsOf(path);
    const size = readFileSync(path).length;
    appendFileSync(path, secondRound(path, 2));
    await catchUp(db, all);
    truncateSync(path, size);
    const shrunk = await catchUp(db, all);
    expect(shrunk.read).toEqual({ files: 1, bytes: size });
    expect(db.rowsOf(path)).toEqual(before);
  });

  it('that was replaced by another file is read again whole, even under the same inode number', async () => {
    const path = files.codex;
    await catchUp(db, all);
    const text = readFileSync(path, 'utf8');
    // Longer than it was, and a file system may hand the freed inode number straight back.
    const other = `${text.replaceAll(PROMPT, '[lab:call] Another task.').replaceAll('lab-call-ok', 'swapped-call-ok')}\n`;
    rmSync(path);
    writeFileSync(path, other);
    const again = await catchUp(db, all);
    expect(again.read.bytes).toBe(Buffer.byteLength(other));
    const rows = db.rowsOf(path);
    expect(rows.some((r) => r.text.includes('swapped-call-ok'))).toBe(true);
    expect(rows.some((r) => r.text.includes('lab-call-ok'))).toBe(false);
  });
});

describe('transcripts that come and go', () => {
  it('a new session is found (its folder changed), a removed one is forgotten', async () => {
    await catchUp(db, all);
    const copy = join(
      home.dir,
      '.claude',
      'projects',
      '-work-new',
      'a1b2c3d4-0000-4000-8000-000000000001.jsonl',
    );
    cpSync(files.claude, copy);
    const found = await catchUp(db, all);
    expect(found.listed).toBe(true);
    expect(db.rowsOf(copy).length).toBeGreaterThan(0);
    rmSync(files.codex);
    const gone = await catchUp(db, all);
    expect(gone.listed).toBe(true);
    expect(db.rowsOf(files.codex)).toEqual([]);
  });

  it('a search with nothing changed reads nothing and lists nothing', async () => {
    await catchUp(db, all);
    expect(await catchUp(db, all)).toMatchObject({
      listed: false,
      read: { files: 0, bytes: 0 },
      behind: null,
    });
  });
});

describe('the budget', () => {
  it('when it runs out, what is left is counted, and the next search reads on', async () => {
    let t = 0;
    // Each look at the clock is a second later: the budget of one second covers one transcript.
    const tight: CatchUpOptions = { env: home.env, deadline: 1, clock: () => t++ };
    const first = await catchUp(db, tight);
    expect(first.read.files).toBe(1);
    expect(first.behind?.files).toBe(1);
    expect(first.behind?.bytes).toBeGreaterThan(0);
    t = 0;
    const next = await catchUp(db, tight);
    expect(next.read.files).toBe(1);
    expect(next.behind).toBeNull();
  });
});

describe('what is watched for new transcripts', () => {
  it('the folders from each transcript up to its root, and a root that holds none yet', () => {
    const w = watchList(
      ['/h/.claude', '/h/.codex', '/h/.gemini'],
      [
        '/h/.claude/projects/-a/1.jsonl',
        '/h/.claude/projects/-b/2.jsonl',
        '/h/.codex/sessions/2026/12/01/r.jsonl',
      ],
    );
    expect([...w].sort()).toEqual([
      '/h/.claude/projects',
      '/h/.claude/projects/-a',
      '/h/.claude/projects/-b',
      '/h/.codex/sessions',
      '/h/.codex/sessions/2026',
      '/h/.codex/sessions/2026/12',
      '/h/.codex/sessions/2026/12/01',
      '/h/.gemini',
    ]);
  });

  it('a session kept in a database is watched through the database and its log', () => {
    expect(
      [...watchList(['/h/.local/share/opencode'], ['/h/.local/share/opencode/opencode.db#ses_1'])].sort(),
    ).toEqual([
      '/h/.local/share/opencode',
      '/h/.local/share/opencode/opencode.db',
      '/h/.local/share/opencode/opencode.db-wal',
    ]);
  });
});
