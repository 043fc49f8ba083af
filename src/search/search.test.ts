/**
 * Search over real transcripts: the lab's recordings of Claude Code 2.1.328, Codex 0.169.0 and Gemini
 * CLI 0.61.0 (`lab/fixtures/`, each agent run against the stand-in model) and a Codex rollout longer
 * than one conversation window, written for these tests, laid out in one fake home (with a long Codex
 * 0.39 rollout from `../shared/corpus` beside them where that is present). A result must name the
 * session and the turn that `cctop chat <id> --at <seq>` shows with the words in it.
 */
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TURNS, type Turn } from '../model/conversation.js';
import { conversationOf, providerById } from '../providers/index.js';
import { FakeHome, HAVE_CORPUS, jsonl, REPO } from '../test-support/corpus.js';
import { type SearchAnswer, type SearchHit, search } from './search.js';

/**
 * The time each search may spend catching its index up: the whole of a test's minute, so the few
 * transcripts here are always read in full before it answers, however busy the machine (the default
 * budget is for a person at a prompt, and a loaded machine could leave part unread).
 */
const BUDGET_MS = 60_000;

/** The corpus rollout with more turns than one window (272), and a phrase from its seventh turn. */
const LONG_CODEX = 'agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl';

/** A Codex rollout of our own with more turns than one window, and a phrase in its seventh turn. */
const LONG_ID = '0199bbbb-cccc-7ddd-8eee-ffff00001111';
const LONG_PHRASE = 'the quiet lighthouse keeper';

/**
 * As codex-cli 0.40 wrote a rollout: its header, then the person's and the agent's messages, here 130
 * exchanges (260 turns, more than `MAX_TURNS`); turn 6 (the fourth prompt) holds the phrase.
 */
function longRollout(): string {
  let t = 0;
  const at = () => new Date(Date.parse('2026-11-02T08:00:00Z') + 1000 * t++).toISOString();
  const said = (role: 'user' | 'assistant', text: string) => ({
    timestamp: at(),
    type: 'response_item',
    payload: {
      type: 'message',
      role,
      content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }],
    },
  });
  const records: unknown[] = [
    {
      timestamp: at(),
      type: 'session_meta',
      payload: {
        id: LONG_ID,
        timestamp: at(),
        cwd: '/home/kim/notes',
        originator: 'codex_cli_rs',
        cli_version: '0.40.0',
      },
    },
  ];
  for (let i = 0; i < 130; i++)
    records.push(
      said('user', i === 3 ? `write a story about ${LONG_PHRASE}` : `step ${i}: tidy chapter ${i}`),
      said('assistant', `chapter ${i} is tidy`),
    );
  return jsonl(...records);
}

function labHome(): FakeHome {
  const home = new FakeHome();
  for (const agent of ['claude', 'codex', 'gemini'])
    for (const script of ['text', 'call'])
      cpSync(join(REPO, 'lab', 'fixtures', agent, script, 'home'), home.dir, { recursive: true });
  home.write(home.codexFile(`rollout-2026-11-02T08-00-00-${LONG_ID}.jsonl`, '2026/11/02'), longRollout());
  if (HAVE_CORPUS) home.codexFromCorpus(LONG_CODEX);
  return home;
}

function results(a: SearchAnswer): SearchHit[] {
  if (a.kind !== 'results') throw new Error(`no results: ${a.why}`);
  return a.results;
}

/** The turn `chat --at` shows for a hit: the window ending just after it. */
function turnOf(hit: SearchHit, file: string): Turn | undefined {
  const c = conversationOf(providerById(hit.provider), file, { before: hit.seq! + 1, agent: null });
  return c.turns.find((t) => t.seq === hit.seq);
}

/** The transcript of a session: its path names the id (Gemini CLI's, the id's first eight characters). */
function fileOf(home: FakeHome, session: string): string {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
    );
  const all = walk(home.dir).filter((p) => /\.jsonl?$/.test(p) && !p.includes('/.cache/'));
  const hit = all.find((p) => p.includes(session)) ?? all.find((p) => p.includes(session.slice(0, 8)));
  if (hit === undefined) throw new Error(`no transcript for ${session}`);
  return hit;
}

describe('search across Claude Code, Codex and Gemini CLI', () => {
  let home: FakeHome;
  beforeAll(() => {
    home = labHome();
  });
  afterAll(() => home.cleanup());

  it('finds a phrase in each harness’s session, at the turn that says it', async () => {
    const answer = await search({
      env: home.env,
      query: '"the lab answers with text only"',
      budgetMs: BUDGET_MS,
    });
    // Within its budget the search read every transcript: nothing is left behind.
    expect(answer).toMatchObject({ kind: 'results', behind: null });
    const hits = results(answer);
    expect(hits.map((h) => h.provider).sort()).toEqual(['claude', 'codex', 'gemini']);
    for (const h of hits) {
      expect(h.role).toBe('assistant');
      const turn = turnOf(h, fileOf(home, h.session));
      expect(turn?.text).toContain('the lab answers with text only');
      expect(h.open).toBe(`cctop chat ${h.session} --at ${h.seq}`);
      expect(h.snippet.slice(h.marks[0]![0], h.marks.at(-1)![1]).toLowerCase()).toContain('lab answers');
    }
  });

  it('finds a command the agent ran as a call, and narrows to one harness and role', async () => {
    const calls = results(
      await search({ env: home.env, query: 'lab-call-ok', role: 'tool', budgetMs: BUDGET_MS }),
    );
    expect(calls.map((h) => h.provider).sort()).toEqual(['claude', 'codex', 'gemini']);
    for (const h of calls) {
      const turn = turnOf(h, fileOf(home, h.session));
      expect(turn?.tools.map((t) => t.detail).join(' ')).toContain('echo lab-call-ok');
    }
    const codex = results(
      await search({ env: home.env, query: 'lab-call-ok', providers: ['codex'], budgetMs: BUDGET_MS }),
    );
    expect(new Set(codex.map((h) => h.provider))).toEqual(new Set(['codex']));
    expect(new Set(codex.map((h) => h.role))).toEqual(new Set(['tool', 'assistant']));
  });

  it('finds what the person typed, a prefix, and a title', async () => {
    const typed = results(
      await search({ env: home.env, query: 'follow lab script', role: 'user', budgetMs: BUDGET_MS }),
    );
    expect(typed.length).toBeGreaterThanOrEqual(6);
    expect(new Set(typed.map((h) => h.role))).toEqual(new Set(['user']));
    const prefix = results(await search({ env: home.env, query: 'pon*', budgetMs: BUDGET_MS }));
    expect(prefix.some((h) => h.snippet.toLowerCase().includes('pong'))).toBe(true);
    const titles = results(
      await search({ env: home.env, query: '"Follow the lab script text"', budgetMs: BUDGET_MS }),
    );
    expect(titles.some((h) => h.role === 'title' && h.seq === null)).toBe(true);
  });

  it('finds a turn long scrolled out of the conversation’s window', async () => {
    const hits = results(await search({ env: home.env, query: `"${LONG_PHRASE}"`, budgetMs: BUDGET_MS }));
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ provider: 'codex', session: LONG_ID, seq: 6, role: 'user' });
    const file = fileOf(home, LONG_ID);
    // The conversation's window holds the newest turns only: turn 6 is long out of it.
    const shown = conversationOf(providerById('codex'), file, { before: null, agent: null });
    expect(shown.turns).toHaveLength(MAX_TURNS);
    expect(shown.earlier).toBe(260 - MAX_TURNS);
    expect(turnOf(hits[0]!, file)?.text).toBe(`write a story about ${LONG_PHRASE}`);
  });

  if (HAVE_CORPUS) {
    // An extra case over `../shared/corpus`, registered only where it is present.
    it('finds a turn long scrolled out of a Codex 0.39 rollout from ../shared/corpus', async () => {
      const hits = results(
        await search({ env: home.env, query: '"paths with parentheses"', budgetMs: BUDGET_MS }),
      );
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({
        provider: 'codex',
        session: '01997e76-d124-7592-9cac-2ec05abbca08',
        seq: 6,
      });
      const turn = turnOf(hits[0]!, fileOf(home, hits[0]!.session));
      expect(turn?.text).toContain('Handling paths with parentheses');
    });
  }

  it('refuses a malformed query with a reason, takes FTS5 operators as words, and finds nothing for an absent word', async () => {
    expect(await search({ env: home.env, query: '"unclosed phrase', budgetMs: BUDGET_MS })).toMatchObject({
      kind: 'malformed',
    });
    const or = results(await search({ env: home.env, query: 'OR', budgetMs: BUDGET_MS }));
    expect(or.every((h) => /\bor\b/i.test(h.snippet))).toBe(true);
    expect(await search({ env: home.env, query: 'zyxwvut', budgetMs: BUDGET_MS })).toMatchObject({
      kind: 'results',
      results: [],
    });
  });
});
