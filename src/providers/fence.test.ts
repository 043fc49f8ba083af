/**
 * A throw inside any harness's reader, injected into each method the scan, the report and the views
 * call (finding files, reading one, sizing a session, reading a conversation or its calls): the run
 * goes on, every other session is exactly as a clean run made it, and a problem says what failed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { buildReport } from '../report/build.js';
import { claudeResponse, FakeHome, REPO } from '../test-support/corpus.js';
import { ALL, Machine } from '../test-support/machine.js';
import { readCold } from '../test-support/snapshot.js';
import { PLAIN } from '../views/cli/color.js';
import { renderReport } from '../views/cli/report.js';
import { callsOf, conversationOf } from './fence.js';
import { providerById } from './index.js';
import { placeById } from './places.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');

/** What a reader throws in these tests: a bug, or a file shaped as nobody foresaw. */
const injected = () => new TypeError('injected: the reader met a shape it did not foresee');

let machine: Machine;
let clean: SessionDocument;

/** Read on this thread (`readCold`): a worker would load the providers afresh, without the injected throw. */
const snap = () => readCold(machine.env, { nowMs: NOW });

/** The sessions of every harness but `p`, as `--json` prints them. */
const others = (doc: SessionDocument, p: ProviderId): string =>
  JSON.stringify(doc.sessions.filter((s) => s.provider !== p));

beforeAll(async () => {
  machine = Machine.build();
  clean = (await snap()).document;
  // Every harness has sessions here, or the test below would prove nothing about it.
  expect(new Set(clean.sessions.map((s) => s.provider))).toEqual(new Set(ALL));
});
afterAll(() => machine.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('a throw inside one harness’s reader costs that harness’s files, never the run', () => {
  it.each(ALL)('%s: a file whose reader throws is a problem; every other session is as it was', async (p) => {
    vi.spyOn(providerById(p), 'parse').mockImplementation(() => {
      throw injected();
    });
    const doc = (await snap()).document;
    expect(others(doc, p)).toBe(others(clean, p));
    expect(doc.sessions.filter((s) => s.provider === p)).toEqual([]);
    const mine = doc.problems.filter((x) => x.kind === 'unreadable' && x.detail.includes('injected'));
    expect(mine.length).toBeGreaterThan(0);
  });

  it.each(ALL)(
    '%s: a context window lookup that throws leaves the session listed, sized without it',
    async (p) => {
      vi.spyOn(placeById(p), 'contextWindow').mockImplementation(() => {
        throw injected();
      });
      const doc = (await snap()).document;
      expect(others(doc, p)).toBe(others(clean, p));
      const mine = doc.sessions.filter((s) => s.provider === p);
      expect(mine.map((s) => s.id)).toEqual(clean.sessions.filter((s) => s.provider === p).map((s) => s.id));
      for (const s of mine)
        expect(doc.problems).toContainEqual(
          expect.objectContaining({
            kind: 'session-note',
            path: s.file,
            detail: expect.stringContaining('injected'),
          }),
        );
    },
  );

  it.each(ALL)('%s: a discovery that throws names its roots; the other harnesses are found', async (p) => {
    vi.spyOn(placeById(p), 'discover').mockImplementation(() => {
      throw injected();
    });
    const doc = (await snap()).document;
    expect(others(doc, p)).toBe(others(clean, p));
    const roots = placeById(p).roots(machine.env);
    for (const r of roots)
      expect(doc.problems).toContainEqual(
        expect.objectContaining({
          kind: 'unreadable',
          path: r.path,
          detail: expect.stringContaining('injected'),
        }),
      );
  });

  it.each(ALL.filter((p) => providerById(p).conversation))(
    '%s: a conversation whose reader throws is shown as unreadable, saying why',
    (p) => {
      const s = clean.sessions.find((x) => x.provider === p)!;
      vi.spyOn(providerById(p), 'conversation').mockImplementation(() => {
        throw injected();
      });
      const c = conversationOf(providerById(p), s.file, { before: null, agent: null });
      expect(c.supported).toBe(false);
      expect(c.note).toContain('injected');
    },
  );

  it.each(ALL.filter((p) => providerById(p).calls))(
    '%s: a report whose calls cannot be read keeps what the scan knows and names the problem',
    async (p) => {
      const snapshot = await snap();
      const s = snapshot.document.sessions.find((x) => x.provider === p)!;
      vi.spyOn(providerById(p), 'calls').mockImplementation(() => {
        throw injected();
      });
      expect(callsOf(providerById(p), s.file).kind).toBe('failed');
      const report = buildReport({
        session: s,
        files: snapshot.files ?? [],
        book: snapshot.book,
        time: snapshot.time,
        nowMs: NOW,
      });
      expect(report.session).toEqual(s);
      expect(report.problems).toEqual([
        expect.objectContaining({
          kind: 'unreadable',
          path: s.file,
          detail: expect.stringContaining('injected'),
        }),
      ]);
    },
  );

  it('the report in a terminal lists what it could not read, naming the file', async () => {
    const snapshot = await snap();
    const s = snapshot.document.sessions.find((x) => x.provider === 'claude')!;
    vi.spyOn(providerById('claude'), 'calls').mockImplementation(() => {
      throw injected();
    });
    const report = buildReport({
      session: s,
      files: snapshot.files ?? [],
      book: snapshot.book,
      time: snapshot.time,
      nowMs: NOW,
    });
    const lines = renderReport(report, PLAIN, 200);
    expect(lines).toContain('Could not read (1)');
    const at = lines.indexOf(`  ${s.file}`);
    expect(at, lines.join('\n')).toBeGreaterThan(0);
    expect(lines[at + 1]).toContain('injected');
  });

  it('a JSON syntax error is told as such, without the text it choked on', async () => {
    vi.spyOn(providerById('claude'), 'parse').mockImplementation(() => {
      // What `JSON.parse` says of a password file's first line.
      throw new SyntaxError('Unexpected token \'r\', "root:$6$saltsalt$hash..." is not valid JSON');
    });
    const doc = (await snap()).document;
    const mine = doc.problems.filter((x) => x.kind === 'unreadable');
    expect(mine.length).toBeGreaterThan(0);
    for (const x of mine) {
      expect(x.detail).toBe('not valid JSON');
      expect(JSON.stringify(x)).not.toContain('root:');
    }
  });
});

describe('a cwd no settings file can be looked up under (Claude Code)', () => {
  it('a 300-character name or a NUL in the cwd is a note on that session; the others are listed', async () => {
    const home = new FakeHome();
    try {
      const line = (id: string, cwd: string) =>
        claudeResponse(id, 2, '2026-11-29T10:00:00Z').replace('"cwd":"/w"', `"cwd":${JSON.stringify(cwd)}`);
      home.write(home.claudeFile('-w', 'long.jsonl'), line('a', `/tmp/${'a'.repeat(300)}`));
      home.write(home.claudeFile('-w', 'nul.jsonl'), line('b', '/w\u0000x'));
      home.write(home.claudeFile('-w', 'fine.jsonl'), line('c', '/w'));
      const doc = (await readCold(home.env, { providers: ['claude'], nowMs: NOW })).document;
      expect(doc.sessions.map((s) => s.id).sort()).toEqual(['fine', 'long', 'nul']);
      expect(doc.sessions.every((s) => s.context.window === 200_000)).toBe(true);
      expect(doc.problems.map((x) => [x.kind, x.path.split('/').pop(), x.detail])).toEqual([
        [
          'session-note',
          'long.jsonl',
          'looking up its context window: ENAMETOOLONG: a name in the path is longer than the file system allows',
        ],
        [
          'session-note',
          'nul.jsonl',
          'looking up its context window: the path holds a NUL byte, which no file name can',
        ],
      ]);
    } finally {
      home.cleanup();
    }
  });
});

describe('the fence is the only way in', () => {
  /** Readers a provider offers: a throw from any of them must meet the fence first. */
  const READER_CALL =
    /\b(?:provider|place|p|providerById\([^)]*\)|placeById\([^)]*\))\??\.(?:parse|conversation|calls|contextWindow|discover|roots)\??\.?\(/;

  it('nothing outside the providers calls a provider’s readers but through the fence', () => {
    const src = join(REPO, 'src');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          // The providers call each other freely; the test helpers call a parser on purpose.
          if (path !== join(src, 'providers') && path !== join(src, 'test-support')) walk(path);
        } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
          for (const [i, line] of readFileSync(path, 'utf8').split('\n').entries())
            if (READER_CALL.test(line)) offenders.push(`${relative(src, path)}:${i + 1}: ${line.trim()}`);
        }
      }
    };
    walk(src);
    expect(offenders).toEqual([]);
  });
});
