import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeSnapshot } from '../../index/snapshot.js';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { sessionOf } from './place.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  takeSnapshot({
    env: { ...home.env, ...env },
    plan: 'retail',
    providers: ['openclaw'],
    sinceMs: null,
    untilMs: null,
    useIndex: false,
    nowMs: NOW,
    threads: 1,
  });

const assistant = (model: string | null, input: number, output: number) =>
  JSON.stringify({
    type: 'message',
    id: `m${input}`,
    timestamp: '2026-01-30T06:00:00.000Z',
    message: { role: 'assistant', content: [], ...(model ? { model } : {}), usage: { input, output } },
  });

describe('OpenClaw session files', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('the recorded home: four sessions over two agents, a reset session still counted, its failed call named', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'openclaw', 'home'), home.dir, { recursive: true });
    const rows = (await snap(home)).document.sessions
      .map((s) => [s.id, s.title, s.models, s.project, s.tools.byTool])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ['4f1c2a7e', 'summarise my inbox', ['gpt-5.2'], '/home/dev/site', { read: { calls: 1, failed: 0 } }],
      ['5e8a0c44', 'now run the tests', ['claude-sonnet-4-5'], '/home/dev/site', {}],
      [
        '9b3e51d0',
        'fix the failing build',
        ['claude-sonnet-4-5'],
        '/home/dev/site',
        { bash: { calls: 1, failed: 1 } },
      ],
      ['c07d9e12', 'find three papers on caching', ['gpt-5.2', 'claude-sonnet-4-5'], '/home/dev/notes', {}],
    ]);
  });

  it('a model snapshot names the model of the responses that do not name their own', async () => {
    home.write(
      join(home.dir, '.openclaw', 'agents', 'main', 'sessions', 's.jsonl'),
      [
        JSON.stringify({
          type: 'custom',
          customType: 'model-snapshot',
          data: { provider: 'openai', modelId: 'gpt-5.2' },
        }),
        assistant(null, 10, 5),
        '',
      ].join('\n'),
    );
    expect((await snap(home)).document.sessions[0]!.models).toEqual(['gpt-5.2']);
  });

  it('$OPENCLAW_DIR names the roots, comma-separated, instead of ~/.openclaw and its older names', async () => {
    const other = join(home.dir, 'elsewhere');
    home.write(join(other, 'agents', 'a', 'sessions', 'kept.jsonl'), `${assistant('gpt-5.2', 7, 1)}\n`);
    home.write(
      join(home.dir, '.clawdbot', 'agents', 'a', 'sessions', 'old.jsonl'),
      `${assistant('gpt-5.2', 7, 1)}\n`,
    );
    expect((await snap(home)).document.sessions.map((s) => s.id)).toEqual(['old']);
    const set = (await snap(home, { OPENCLAW_DIR: `${other}, ${join(home.dir, 'none')}` })).document;
    expect(set.sessions.map((s) => s.id)).toEqual(['kept']);
  });

  it('a session file is `.jsonl`, or one archived by a reset or a delete, named by what precedes `.jsonl`', () => {
    expect(
      [
        'a.jsonl',
        'a.jsonl.reset.2026-03-20T06-34-44.520Z',
        'a.jsonl.deleted.1700000000000',
        'a.json',
        'a.jsonl.tmp',
        '.jsonl',
      ].map(sessionOf),
    ).toEqual(['a', 'a', 'a', null, null, null]);
  });
});
