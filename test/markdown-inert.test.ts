/**
 * Every Markdown cctop writes from a transcript (`export`, `chat --markdown`, the dashboard's
 * download, `handoff`) rendered by a real CommonMark renderer that passes HTML through: whatever the
 * session holds in its title, its directory, a tool's name, a call's input, a result or a message,
 * no element, link or image of the transcript's comes out.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl, REPO } from '../src/test-support/corpus.js';
import { markupProblems } from '../src/test-support/markdown.js';
import { type RunningServer, startServer } from '../src/views/serve/server.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
let server: RunningServer | undefined;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  home.cleanup();
});

const run = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args, '--no-cache'], {
    env: { PATH: process.env.PATH ?? '', ...home.env },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

const XSS = '<img src=x onerror=alert(1)>';

/**
 * A Claude Code session (2.1.80's records) hostile in every field that reaches Markdown: a title
 * with HTML and a link, a directory with backquotes and an image, a tool whose name holds a backquote
 * (the case that closed the export's code span early), and messages with fences, links and HTML.
 */
function hostileSession(): void {
  const cwd = `/w/\`${XSS}\`/![p](https://evil.example/p.png)`;
  const base = { cwd, isSidechain: false, version: '2.1.80', sessionId: 'evil-0002' };
  home.write(
    home.claudeFile('-w-evil', 'evil-0002.jsonl'),
    jsonl(
      {
        type: 'custom-title',
        customTitle: `Title ${XSS} [click](https://evil.example/)`,
        sessionId: 'evil-0002',
      },
      {
        ...base,
        type: 'user',
        uuid: 'u0',
        timestamp: '2026-11-29T10:00:00Z',
        message: {
          role: 'user',
          content: `fix it ${XSS} [x](https://evil.example/)\n\`\`\`\nok\r\`\`\`\r${XSS}`,
        },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'a0',
        parentUuid: 'u0',
        timestamp: '2026-11-29T10:00:01Z',
        requestId: 'req-0',
        message: {
          id: 'msg-0',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [
            {
              type: 'text',
              text: `Looking ![t](https://evil.example/t.png) <a href="https://evil.example/">x</a>`,
            },
            {
              type: 'tool_use',
              id: 't0',
              name: 'mcp__x`y',
              input: { command: `echo '${XSS}' \`\`\` [l](u)` },
            },
          ],
          usage: { input_tokens: 5, output_tokens: 5 },
        },
      },
      {
        ...base,
        type: 'user',
        uuid: 'r0',
        parentUuid: 'a0',
        timestamp: '2026-11-29T10:00:02Z',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't0', content: `out \`\`\`\`\n${XSS}\n\`\`\`\`` }],
        },
      },
    ),
  );
}

describe('Markdown from a hostile transcript, rendered with HTML on', () => {
  it('export --format markdown makes no element, link or image', () => {
    hostileSession();
    const r = run(['export', 'evil-0002', '--format', 'markdown']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('mcp');
    expect(markupProblems(r.out)).toEqual([]);
  });

  it('chat --markdown makes no element, link or image', () => {
    hostileSession();
    const r = run(['chat', 'evil-0002', '--markdown']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('fix it');
    expect(markupProblems(r.out)).toEqual([]);
  });

  it('the handoff brief makes no element, link or image', () => {
    hostileSession();
    const out = join(home.dir, 'brief.md');
    const r = run(['handoff', 'evil-0002', '--to', 'codex', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('fix it');
    expect(markupProblems(md)).toEqual([]);
  });

  it("the dashboard's Markdown download makes no element, link or image", async () => {
    hostileSession();
    server = await startServer({
      env: home.env,
      plan: 'retail',
      providers: null,
      useIndex: false,
      threads: 1,
      delayMs: 60_000,
      bind: '127.0.0.1',
      port: 0,
      stepPort: false,
      token: null,
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/api/chat/evil-0002/markdown`);
    expect(res.status).toBe(200);
    const md = await res.text();
    expect(md).toContain('fix it');
    expect(markupProblems(md)).toEqual([]);
  });
});
