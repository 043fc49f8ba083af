/**
 * `cctop doctor` names what a newer harness wrote that cctop does not read: record types (and fields
 * of the types it reads) its reader does not know, per harness and CLI version, with counts and the
 * first place each was seen. The pinned versions the lab recorded know no unknowns; a version that
 * adds a record type is named the day its files appear.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../src/test-support/corpus.js';
import { demoFiles, LAB_CASES, labFile, labFiles, labHome } from '../src/test-support/lines.js';
import { parsed } from '../src/test-support/parse.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const doctor = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, 'doctor', ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });

/** The doctor section, from its title to the blank line after it. */
const section = (out: string): string[] => {
  const lines = out.split('\n');
  const at = lines.indexOf('Records cctop does not read (a newer CLI wrote them)');
  if (at < 0) return [];
  const end = lines.indexOf('', at);
  return lines.slice(at, end < 0 ? undefined : end);
};

const SESSION = '02d7b670-5237-46d6-b46d-86ffd47bdf03';
/** Lines as a Claude Code "2.2.0" might add them: a record type, and a field on a user row. */
const planted = [
  ...Array.from({ length: 3 }, (_, i) => ({
    type: 'tool-journal',
    version: '2.2.0',
    sessionId: SESSION,
    timestamp: `2026-12-07T06:00:0${i}Z`,
    entries: [],
  })),
  {
    type: 'user',
    version: '2.2.0',
    turnBudget: 3,
    sessionId: SESSION,
    timestamp: '2026-12-07T06:00:05Z',
    message: { role: 'user', content: 'and the docs' },
  },
];

function plantedHome(): { path: string; first: number } {
  const recorded = readFileSync(labFile('claude', 'call'), 'utf8');
  const path = home.claudeFile('-w', `${SESSION}.jsonl`);
  home.write(path, recorded + planted.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return { path, first: recorded.split('\n').length };
}

describe('the pinned harness versions write nothing their readers do not know', () => {
  it('every line Claude Code 2.1.328 wrote in the lab, and the 2.1.80 demo history, is known', () => {
    const files = [...labFiles('claude'), ...demoFiles('.claude')];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(parsed('claude', file).result.facts.drift ?? null, file).toBeNull();
  });

  it('every line Codex 0.169.0 wrote in the lab is known', () => {
    const files = labFiles('codex');
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(parsed('codex', file).result.facts.drift ?? null, file).toBeNull();
  });

  it.each([
    ['gemini', 'Gemini CLI 0.61.0'],
    ['qwen', 'Qwen Code 0.24.4'],
    ['pi', 'Pi 0.73.1'],
    ['copilot', 'Copilot CLI 1.0.102'],
  ] as const)('every line %s wrote in the lab (%s) is known', (agent, _version) => {
    const files = labFiles(agent);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(parsed(agent, file).result.facts.drift ?? null, file).toBeNull();
  });

  it('every row OpenCode 1.18.33 wrote in the lab is known: doctor over each case has no drift section', () => {
    for (const c of LAB_CASES) {
      cpSync(labHome('opencode', c), home.dir, { recursive: true });
      const r = doctor('--no-cache');
      expect(r.stdout, c).toContain('OpenCode: 1 session');
      expect(section(r.stdout), c).toEqual([]);
    }
  });

  it('doctor over the lab’s Claude Code sessions has no drift section', () => {
    for (const file of labFiles('claude')) home.copy(file, home.claudeFile('-lab', file.split('/').at(-1)!));
    const r = doctor('--no-cache');
    expect(r.stdout).toContain('Claude Code: ');
    expect(section(r.stdout)).toEqual([]);
    expect(r.status).toBe(0);
  });
});

describe('a version that writes what cctop does not read is named in doctor', () => {
  it('names the version, counts the new record type and the new field, and says where each was first', () => {
    const { first } = plantedHome();
    const where = `~/.claude/projects/-w/${SESSION}.jsonl`;
    const want = [
      'Records cctop does not read (a newer CLI wrote them)',
      '  Claude Code 2.2.0: 1 record type cctop does not read, 1 field it does not know',
      `    type tool-journal ×3, first at ${where}:${first}`,
      `    field turnBudget ×1, first at ${where}:${first + 3}`,
    ];
    expect(section(doctor('--no-cache').stdout)).toEqual(want);
    // Kept in the index with the file's facts: a second run reads the file no more and says the same.
    expect(section(doctor().stdout)).toEqual(want);
    const again = doctor();
    expect(section(again.stdout)).toEqual(want);
    expect(again.status).toBe(0);
  });

  it('a Codex rollout names the version its session_meta gave, for a payload type added after it', () => {
    const recorded = readFileSync(labFile('codex', 'call'), 'utf8').replace(
      /"cli_version":"[^"]*"/,
      '"cli_version":"0.172.0"',
    );
    const name = labFile('codex', 'call').split('/').at(-1)!;
    const added = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        timestamp: `2026-12-07T06:00:${String(10 + i)}Z`,
        type: 'event_msg',
        payload: { type: 'status_line_snapshot', thread_id: 't' },
      }),
    );
    home.write(home.codexFile(name), `${recorded}${added.join('\n')}\n`);
    const out = section(doctor('--no-cache').stdout);
    expect(out.slice(0, 3)).toEqual([
      'Records cctop does not read (a newer CLI wrote them)',
      '  Codex 0.172.0: 1 record type cctop does not read',
      `    type event_msg/status_line_snapshot ×12, first at ~/.codex/sessions/2025/09/25/${name}:${recorded.split('\n').length}`,
    ]);
  });

  it('a hostile type name is printed inert and cut short', () => {
    const path = home.claudeFile('-w', `${SESSION}.jsonl`);
    const name = `\u001b]52;c;${'A'.repeat(200)}\u0007`;
    home.write(path, `${JSON.stringify({ type: name, version: '9.9.9', sessionId: SESSION })}\n`);
    const out = section(doctor('--no-cache').stdout);
    expect(out[1]).toBe('  Claude Code 9.9.9: 1 record type cctop does not read');
    expect(out.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out[2]!.length).toBeLessThan(200);
  });

  /**
   * Each reader's planted release: three records of a type it does not know and one record of a type
   * it reads with a field it does not know, made from the records the pinned version wrote in the
   * lab (so each stays a record the reader takes).
   */
  type Rec = Record<string, unknown>;
  const PLANTED: [
    agent: 'gemini' | 'qwen' | 'pi' | 'copilot',
    seen: string,
    type: string,
    plant: (rs: Rec[]) => Rec[],
  ][] = [
    [
      'qwen',
      'Qwen Code 0.25.0',
      'system/loop_guard',
      (rs) => {
        const system = rs.find((r) => r.type === 'system')!;
        const user = rs.find((r) => r.type === 'user')!;
        return [
          ...[1, 2, 3].map((i) => ({
            ...system,
            uuid: `plant-${i}`,
            subtype: 'loop_guard',
            version: '0.25.0',
          })),
          { ...user, uuid: 'plant-4', version: '0.25.0', turnBudget: 3 },
        ];
      },
    ],
    [
      'pi',
      'Pi format 3',
      'bookmark',
      (rs) => {
        const user = rs.find((r) => r.type === 'message')!;
        return [
          ...[1, 2, 3].map((i) => ({
            type: 'bookmark',
            id: `plant${i}`,
            parentId: null,
            timestamp: user.timestamp,
          })),
          { ...user, id: 'plant4', turnBudget: 3 },
        ];
      },
    ],
    [
      'copilot',
      'Copilot CLI 1.0.102',
      'session.sandbox_report',
      (rs) => {
        const user = rs.find((r) => r.type === 'user.message')!;
        return [
          ...[1, 2, 3].map((i) => ({ ...user, id: `plant-${i}`, type: 'session.sandbox_report', data: {} })),
          { ...user, id: 'plant-4', turnBudget: 3 },
        ];
      },
    ],
    [
      'gemini',
      'Gemini CLI version not named',
      'message/plan',
      (rs) => {
        const user = rs.find((r) => r.type === 'user')!;
        return [
          ...[1, 2, 3].map((i) => ({ ...user, id: `plant-${i}`, type: 'plan' })),
          { ...user, id: 'plant-4', turnBudget: 3 },
        ];
      },
    ],
  ];

  it.each(PLANTED)(
    '%s: names the version, the new record type and the new field',
    (agent, seen, type, plant) => {
      cpSync(labHome(agent, 'call'), home.dir, { recursive: true });
      const recorded = labFile(agent, 'call');
      const path = join(home.dir, recorded.slice(labHome(agent, 'call').length));
      const text = readFileSync(path, 'utf8');
      const records = text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Rec);
      appendFileSync(
        path,
        plant(records)
          .map((r) => `${JSON.stringify(r)}\n`)
          .join(''),
      );
      const first = records.length + 1;
      const where = `~${path.slice(home.dir.length)}`;
      expect(section(doctor('--no-cache').stdout)).toEqual([
        'Records cctop does not read (a newer CLI wrote them)',
        `  ${seen}: 1 record type cctop does not read, 1 field it does not know`,
        `    type ${type} ×3, first at ${where}:${first}`,
        `    field turnBudget ×1, first at ${where}:${first + 3}`,
      ]);
    },
  );

  it('opencode: names the version its session row gave and a part type added after it', () => {
    cpSync(labHome('opencode', 'call'), home.dir, { recursive: true });
    const path = join(home.dir, '.local', 'share', 'opencode', 'opencode.db');
    const db = new Database(path);
    const { id: session } = db.prepare('SELECT id FROM session').get() as { id: string };
    const { id: message } = db.prepare('SELECT id FROM message ORDER BY id DESC').get() as { id: string };
    db.prepare('UPDATE session SET version = ?').run('1.19.0');
    const add = db.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 1, 1, ?)',
    );
    for (const i of [1, 2, 3])
      add.run(`prt_zzzz${i}`, message, session, JSON.stringify({ type: 'plan-step' }));
    db.close();
    const out = section(doctor('--no-cache').stdout);
    // The session row, three messages and seven parts come first: the first new part is row 12.
    expect(out).toEqual([
      'Records cctop does not read (a newer CLI wrote them)',
      '  OpenCode 1.19.0: 1 record type cctop does not read',
      `    type part/plan-step ×3, first at ~/.local/share/opencode/opencode.db#${session}:12`,
    ]);
  });
});
