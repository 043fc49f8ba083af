/**
 * Text a harness injected never reaches a person as their own words, end to end: `chat` labels it
 * harness, and `handoff`'s Goal is the person's first message, not Codex's AGENTS.md block. The
 * session is the lab's recorded Codex 0.169.0 run with an AGENTS.md message put before the prompt,
 * as Codex writes one for a project that has the file (without 0.169's provenance, as older
 * versions write it). Runs the built CLI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../src/test-support/cli-run.js';
import { FakeHome, REPO } from '../src/test-support/corpus.js';

const PROMPT = '[lab:text] Follow the lab script text.';
const AGENTS_MD =
  '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nRun the tests before you finish.\n</INSTRUCTIONS>';

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
  const dir = join(
    REPO,
    'lab',
    'fixtures',
    'codex',
    'text',
    'home',
    '.codex',
    'sessions',
    '2026',
    '12',
    '01',
  );
  const name = readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
  const out: string[] = [];
  for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { type: string; payload: Record<string, unknown> };
    if (r.type === 'response_item' && r.payload.role === 'user') {
      delete r.payload.internal_chat_message_metadata_passthrough;
      if (JSON.stringify(r).includes(PROMPT))
        out.push(
          JSON.stringify({
            ...r,
            payload: { ...r.payload, content: [{ type: 'input_text', text: AGENTS_MD }] },
          }),
        );
    }
    out.push(JSON.stringify(r));
  }
  home.write(home.codexFile(name, '2026/12/01'), `${out.join('\n')}\n`, Date.parse('2026-12-01T22:00:00Z'));
});
afterEach(() => home.cleanup());

it("chat labels Codex's AGENTS.md block harness, and only the person's prompt you", async () => {
  const r = await runCli(['chat'], { ...home.env, COLUMNS: '80' });
  expect(r.code).toBe(0);
  const you = r.out.split('\n').filter((l) => / you /.test(l) && l.startsWith('── #'));
  expect(you).toHaveLength(1);
  const at = r.out.indexOf(you[0]!);
  expect(r.out.slice(at).split('\n')[1]).toBe(PROMPT);
  expect(r.out).toContain('# AGENTS.md instructions for /w');
});

it("handoff's Goal is the person's first message, not the injected AGENTS.md", async () => {
  const r = await runCli(['handoff', '--to', 'claude'], { ...home.env, PATH: process.env.PATH ?? '' });
  expect(r.code).toBe(0);
  const path = /^Brief: (.+) \(\d+ bytes\)$/m.exec(r.out)?.[1];
  expect(path).toBeDefined();
  const brief = readFileSync(path!, 'utf8');
  const goal = brief.slice(brief.indexOf('## Goal'), brief.indexOf('\n## ', brief.indexOf('## Goal') + 1));
  expect(goal).toContain(PROMPT);
  expect(goal).not.toContain('AGENTS.md');
});
