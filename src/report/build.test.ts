/**
 * A session's report asks the session's provider for its calls: every harness with a calls reader
 * gets a context series, its failures and its files, and the report reads no harness's records.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../test-support/corpus.js';
import { readCold } from '../test-support/snapshot.js';
import { buildReport } from './build.js';

const NOW = Date.parse('2026-05-01T12:00:00Z');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

async function report() {
  const s = await readCold(home.env, { providers: ['gemini'], nowMs: NOW });
  const session = s.document.sessions[0]!;
  const mine = s.filesOf(session)!;
  return buildReport({
    session,
    files: mine.files,
    ...(mine.masks ? { masks: mine.masks } : {}),
    book: s.book,
    time: s.time,
    nowMs: NOW,
  });
}

describe('a report from the provider’s calls', () => {
  it('a Gemini CLI session has a context series, its failed call grouped, and the file it wrote', async () => {
    // Gemini CLI 0.40's JSONL chat (trimmed from the corpus's `gemini-jsonl_v040`).
    const dir = join(home.dir, '.gemini', 'tmp', 'p1', 'chats');
    mkdirSync(dir, { recursive: true });
    home.write(join(home.dir, '.gemini', 'tmp', 'p1', '.project_root'), '/w/app\n');
    const tokens = (input: number, cached: number) => ({
      input,
      output: 81,
      cached,
      thoughts: 0,
      tool: 0,
      total: input + 81,
    });
    const call = (id: string, name: string, args: object, status: string, output: string) => ({
      id,
      name,
      args,
      status,
      timestamp: '2026-04-29T21:39:35.364Z',
      result: [{ functionResponse: { id, name, response: { output } } }],
    });
    home.write(
      join(dir, 'session-2026-04-29T21-39-gemini01.jsonl'),
      jsonl(
        {
          sessionId: 'gemini_report_1',
          projectHash: 'abc',
          startTime: '2026-04-29T21:39:22.319Z',
          kind: 'main',
        },
        {
          id: 'u1',
          timestamp: '2026-04-29T21:39:33.155Z',
          type: 'user',
          content: [{ text: 'Fix the build.' }],
        },
        {
          id: 'g1',
          timestamp: '2026-04-29T21:39:35.125Z',
          type: 'gemini',
          content: '',
          model: 'gemini-3-flash-preview',
          tokens: tokens(11_855, 0),
          toolCalls: [call('c1', 'run_shell_command', { command: 'npm run build' }, 'error', 'error TS2322')],
        },
        {
          id: 'g2',
          timestamp: '2026-04-29T21:39:45.996Z',
          type: 'gemini',
          content: '',
          model: 'gemini-3-flash-preview',
          tokens: tokens(12_069, 11_502),
          toolCalls: [
            call(
              'c2',
              'write_file',
              { file_path: '/w/app/src/a.ts', content: 'export const a = 1;\n' },
              'success',
              'ok',
            ),
          ],
        },
        {
          id: 'g3',
          timestamp: '2026-04-29T21:39:55.000Z',
          type: 'gemini',
          content: 'Fixed.',
          model: 'gemini-3-flash-preview',
          tokens: tokens(12_300, 12_000),
        },
      ),
    );
    const r = await report();
    expect(r.context.series.map((p) => p.prompt)).toEqual([11_855, 12_069, 12_300]);
    expect(r.tools.failures).toEqual([
      expect.objectContaining({
        tool: 'run_shell_command',
        detail: 'npm run build',
        count: 1,
        samples: ['error TS2322'],
      }),
    ]);
    expect(r.tools.heaviest.map((h) => [h.tool, h.growth])).toEqual([
      ['write_file', 231],
      ['run_shell_command', 214],
    ]);
    expect(r.files).toEqual([{ path: '/w/app/src/a.ts', reads: 0, writes: 1, added: 1, removed: 0 }]);
  });

  it('nothing in the report imports a provider’s own modules: only the provider list', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const imports = readdirSync(here)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .flatMap((f) =>
        [...readFileSync(join(here, f), 'utf8').matchAll(/from '(\.\.\/providers\/[^']+)'/g)].map(
          (m) => m[1],
        ),
      );
    expect(imports.filter((m) => m !== '../providers/index.js')).toEqual([]);
  });
});
