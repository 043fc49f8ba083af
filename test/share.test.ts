/**
 * `cctop handoff` and `cctop export` as a user runs them, against fake homes built from the corpus.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl, REPO } from '../src/test-support/corpus.js';
import { addClaude, DEMO_WITH_SUBAGENT, sessionIdOf, writeLongCodex } from '../src/test-support/owned.js';

const CLI = join(REPO, 'dist', 'cli.js');
const LONG_CODEX = '01997e76-d124-7592-9cac-2ec05abbca08';

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const run = (args: string[], env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args, '--no-cache'], {
    env: { PATH: process.env.PATH ?? '', ...home.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/** Terminal controls and the invisible characters that reorder or hide text. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Markdown without its code (fenced blocks, inline spans), where a renderer reads nothing as HTML. */
const outsideFences = (md: string): string =>
  md.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/`[^`\n]*`/g, '');

/** A Claude Code session (2.1.80's records) in `cwd` whose messages and tool output are hostile. */
function hostileSession(cwd: string, id = 'evil-0001'): void {
  const base = { cwd, isSidechain: false, version: '2.1.80', sessionId: id };
  const evil = '<img src=x onerror=alert(1)> \u001b]0;pwned\u0007 \u202eevil <!-- x --> & </script>';
  home.write(
    home.claudeFile('-w-evil', `${id}.jsonl`),
    jsonl(
      {
        ...base,
        type: 'user',
        uuid: 'u0',
        timestamp: '2026-11-29T10:00:00Z',
        message: { role: 'user', content: `fix it ${evil}` },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'a0',
        timestamp: '2026-11-29T10:00:01Z',
        requestId: 'req-0',
        message: {
          id: 'msg-0',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [
            { type: 'text', text: `Looking. ${evil}\n\`\`\`html\n<b>kept as code</b>\n\`\`\`` },
            { type: 'tool_use', id: 't0', name: 'Bash', input: { command: `echo '${evil}'` } },
          ],
          usage: { input_tokens: 5, output_tokens: 5 },
        },
      },
      {
        ...base,
        type: 'user',
        uuid: 'r0',
        timestamp: '2026-11-29T10:00:02Z',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't0', content: `out ${evil}` }],
        },
      },
    ),
  );
}

describe('cctop handoff', () => {
  it('writes the brief into the cache, readable by this user only, and prints the command as JSON', () => {
    const work = join(home.dir, 'work');
    mkdirSync(work);
    hostileSession(work);
    const r = run(['handoff', 'evil-0001', '--json']);
    expect(r.code, r.err).toBe(0);
    const h = JSON.parse(r.out) as {
      brief: string;
      to: string;
      cwd: string;
      command: string[];
      line: string;
    };
    expect(h.to).toBe('codex');
    expect(h.brief).toBe(join(home.env.CCTOP_CACHE_DIR!, 'handoff', 'claude-evil-0001-to-codex.md'));
    expect(statSync(h.brief).mode & 0o777).toBe(0o600);
    expect(h.cwd).toBe(work);
    expect(h.command[0]).toBe('codex');
    expect(h.command[1]).toContain(`Read the handoff brief at ${h.brief} first`);
    expect(h.line).toBe(`cd ${work} && codex '${h.command[1]}'`);
    const brief = readFileSync(h.brief, 'utf8');
    expect(brief).toContain('fix it <img src=x onerror=alert(1)>');
    expect(brief).not.toMatch(CONTROLS);
  });

  it('prints where the brief is and the command, for the harness asked for, to the file asked for', () => {
    hostileSession('/w/gone');
    const out = join(home.dir, 'brief.md');
    const r = run(['handoff', 'evil', '--to', 'gemini', '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(new RegExp(`^Brief: ${out} \\(\\d+ bytes\\)$`));
    expect(r.out).toContain(
      `Start Gemini CLI on it: cd /w/gone && gemini --include-directories ${home.dir} --prompt-interactive 'Read the handoff brief at ${out} first`,
    );
    expect(existsSync(out)).toBe(true);
  });

  it('refuses a harness it cannot start, naming the ones it can', () => {
    hostileSession('/w/app');
    const r = run(['handoff', 'evil', '--to', 'cursor']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      '--to cursor: expected one of claude, codex, gemini, qwen, opencode, pi, copilot',
    );
  });

  it('--run starts the other harness in the session’s directory with the prompt, and passes on its exit code', () => {
    const work = join(home.dir, 'work dir');
    mkdirSync(work);
    hostileSession(work);
    const bin = join(home.dir, 'bin');
    mkdirSync(bin);
    const record = join(home.dir, 'ran.txt');
    home.write(
      join(bin, 'codex'),
      `#!/bin/sh\npwd > '${record}'\nprintf '%s\\n' "$@" >> '${record}'\nexit 7\n`,
    );
    chmodSync(join(bin, 'codex'), 0o755);
    const r = run(['handoff', 'evil', '--run'], { PATH: `${bin}:${process.env.PATH}` });
    expect(r.code, r.err).toBe(7);
    const [cwd, prompt] = readFileSync(record, 'utf8').split('\n');
    expect(cwd).toBe(work);
    expect(prompt).toMatch(/^Read the handoff brief at .*claude-evil-0001-to-codex\.md first/);
  });

  it('--run says so when the session’s directory is gone, and runs nothing', () => {
    hostileSession('/w/no-such-dir');
    const r = run(['handoff', 'evil', '--run']);
    expect(r.code).toBe(1);
    expect(r.err).toContain("the session's directory /w/no-such-dir is gone");
  });

  it('is in cctop help', () => {
    const r = run(['help']);
    expect(r.out).toContain('cctop handoff [ID]');
    expect(r.out).toContain('cctop export [ID]');
    expect(run(['help', 'handoff']).out).toContain('--to HARNESS');
  });
});

describe('cctop export', () => {
  it('writes every turn of a long Codex session (360 turns), not only the newest window', () => {
    // 120 prompts, each a call and an answer: more turns than one window of the conversation holds (MAX_TURNS).
    writeLongCodex(home.dir, LONG_CODEX, 120);
    const md = run(['export', LONG_CODEX.slice(0, 8)]);
    expect(md.code, md.err).toBe(0);
    const headings = md.out.match(/^## #\d+ /gm) ?? [];
    expect(headings).toHaveLength(360);
    expect(headings[0]).toBe('## #0 ');
    expect(headings.at(-1)).toBe('## #359 ');
    expect(md.out).toContain('Step 120: run the check again and say what it printed.');
    expect(md.out).not.toMatch(CONTROLS);
    expect(outsideFences(md.out)).not.toMatch(/<[a-z!/]/i);
    const json = run(['export', LONG_CODEX.slice(0, 8), '--format', 'json']);
    const j = JSON.parse(json.out) as {
      version: number;
      session: { id: string };
      turns: { seq: number }[];
    };
    expect(j.session.id).toBe(LONG_CODEX);
    expect(j.turns).toHaveLength(360);
    expect(j.turns.map((t) => t.seq)).toEqual([...Array(360).keys()]);
    expect(json.out).not.toMatch(/[<>]/);
  });

  it('makes hostile text safe in Markdown: no control characters, no HTML outside code', () => {
    hostileSession('/w/app');
    const out = join(home.dir, 'evil.md');
    const r = run(['export', 'evil', '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`Wrote 2 turns to ${out}\n`);
    const md = readFileSync(out, 'utf8');
    expect(md).not.toMatch(CONTROLS);
    expect(md).toContain('fix it &lt;img src=x onerror=alert(1)>');
    expect(md).toContain('&lt;/script>');
    // A fenced block is code to every renderer: its text stays as written.
    expect(md).toContain('```html\n<b>kept as code</b>\n```');
    expect(outsideFences(md)).not.toMatch(/<[a-z!/]/i);
  });

  it('makes hostile text safe in JSON: no raw < > &, and strings with no control characters', () => {
    hostileSession('/w/app');
    const r = run(['export', 'evil', '--format', 'json']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/[<>&]/);
    expect(r.out).not.toMatch(CONTROLS);
    const j = JSON.parse(r.out) as { turns: { text: string; tools: { result: string }[] }[] };
    expect(j.turns[0]!.text).toContain('<img src=x onerror=alert(1)>');
    expect(j.turns[0]!.text).not.toMatch(CONTROLS);
    expect(j.turns[1]!.tools[0]!.result).toContain('</script>');
  });

  it('--subagents adds each subagent’s conversation after the session’s own', () => {
    // The demo's billing session ran one subagent, and Claude Code wrote its kind beside it.
    const id = sessionIdOf(addClaude(home.dir, DEMO_WITH_SUBAGENT, '-work-sub'));
    const agent = 'a3a6448476ea5ca32';
    home.write(
      home.claudeFile('-work-sub', `${id}/subagents/agent-${agent}.meta.json`),
      JSON.stringify({ agentType: 'Explore' }),
    );
    const j = JSON.parse(run(['export', id, '--format', 'json', '--subagents']).out) as {
      turns: unknown[];
      subagents: { agent: string; type: string; turns: unknown[]; note: string | null }[];
    };
    expect(j.turns).toHaveLength(90);
    expect(j.subagents.map((a) => [a.agent, a.type, a.note])).toEqual([[agent, 'Explore', null]]);
    expect(j.subagents[0]!.turns).toHaveLength(20);
    expect(run(['export', id, '--subagents']).out).toContain(`# Subagent \`${agent}\` (Explore)`);
    expect(run(['export', id, '--format', 'json']).out).toContain('"subagents":[]');
  });

  it('refuses a format it does not write', () => {
    hostileSession('/w/app');
    const r = run(['export', 'evil', '--format', 'html']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--format html: expected markdown or json');
  });
});
