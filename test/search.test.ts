/**
 * `cctop search` and `cctop chat --at` as a user runs them: the built `dist/cli.js` in a child
 * process, against a fake home holding the lab's recordings of Claude Code, Codex and Gemini CLI
 * (`lab/fixtures/<agent>/{text,call}`). `npm test` builds first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../src/search/search.js';
import { FakeHome, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');

function cctop(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let home: FakeHome;
beforeAll(() => {
  home = new FakeHome();
  for (const agent of ['claude', 'codex', 'gemini'])
    for (const script of ['text', 'call'])
      cpSync(join(REPO, 'lab', 'fixtures', agent, script, 'home'), home.dir, { recursive: true });
});
afterAll(() => home.cleanup());

describe('cctop search', () => {
  it('prints each match with its session, its turn and the command that opens it there', () => {
    const r = cctop(['search', '"the lab answers with text only"'], home.env);
    expect(r.code, r.err).toBe(0);
    const opens = r.out.match(/cctop chat \S+ --at \d+/g) ?? [];
    expect(opens).toHaveLength(3);
    expect(r.out).toContain('«the lab answers with text only»');
    for (const word of ['claude', 'codex', 'gemini']) expect(r.out).toContain(word);
    // Not a terminal: no escape sequence at all.
    expect(r.out).not.toContain('\u001b');
  });

  it('answers JSON that names the turn, narrowed by harness and by who said it', () => {
    const r = cctop(
      ['search', 'lab-call-ok', '--role', 'tool', '--provider', 'codex,gemini', '--json'],
      home.env,
    );
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { results: SearchHit[]; behind: unknown };
    expect(doc.behind).toBeNull();
    expect(doc.results.map((h) => h.provider).sort()).toEqual(['codex', 'gemini']);
    for (const h of doc.results) {
      expect(h.role).toBe('tool');
      expect(h.open).toBe(`cctop chat ${h.session} --at ${h.seq}`);
    }
  });

  it('refuses a malformed query with its own words and exit 2, never SQLite’s', () => {
    for (const q of ['"unclosed', '***', 'a*']) {
      const r = cctop(['search', q], home.env);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^cctop: /);
      expect(r.err).not.toMatch(/fts5|sqlite|syntax error/i);
    }
    expect(cctop(['search'], home.env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('needs a query'),
    });
    expect(cctop(['search', 'x', '--role', 'robot'], home.env).code).toBe(2);
  });

  it('says so when nothing matches', () => {
    const r = cctop(['search', 'zyxwvutsr'], home.env);
    expect(r.code).toBe(0);
    expect(r.out).toContain('No conversation matches zyxwvutsr.');
  });

  it('has its own help, from either spelling', () => {
    expect(cctop(['search', '--help'], home.env).out).toContain('Usage: cctop search QUERY');
    expect(cctop(['help', 'search'], home.env).out).toContain('--role user|assistant|tool');
  });
});

describe('cctop chat --at', () => {
  it('opens the conversation where a search result points, that turn marked', () => {
    const found = JSON.parse(
      cctop(['search', 'lab-call-ok', '--provider', 'claude', '--role', 'tool', '--json'], home.env).out,
    ) as {
      results: SearchHit[];
    };
    const hit = found.results[0]!;
    const r = cctop(['chat', hit.session, '--at', String(hit.seq)], home.env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`▶▶ #${hit.seq} `));
    expect(r.out).toContain('echo lab-call-ok');
    const json = JSON.parse(
      cctop(['chat', hit.session, '--at', String(hit.seq), '--json'], home.env).out,
    ) as {
      at: number;
      turns: { seq: number }[];
    };
    expect(json.at).toBe(hit.seq);
    expect(json.turns.some((t) => t.seq === hit.seq)).toBe(true);
    expect(Math.max(...json.turns.map((t) => t.seq))).toBeLessThanOrEqual(hit.seq! + 2);
  });

  it('refuses --at with --before, and a turn number that is not one', () => {
    expect(cctop(['chat', '--at', '3', '--before', '5'], home.env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('give one of them'),
    });
    expect(cctop(['chat', '--at', 'three'], home.env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('expected a turn number'),
    });
  });
});
