/**
 * One line nested far too deep, in a real transcript of each harness: it is one bad line, counted
 * and located, and everything else the file says reads as it did without it, by the byte skim the
 * scan uses, by a full parse (`CCTOP_PARSE=full`), by the conversation reader and by the report's
 * calls. (Before the bound, such a line overflowed the stack in whichever recursive walk met it
 * first and the whole conversation read as "could not read the transcript".)
 */
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FileFacts, ProviderId } from '../model/facts.js';
import type { HistoryFile } from '../test-support/machine.js';
import { HISTORY_MTIME_MS, Machine } from '../test-support/machine.js';
import { sourceOf } from '../test-support/parse.js';
import type { Provider } from './types.js';

/** Shaped as a tool result so that the readers which walk one (to show or to measure it) reach it. */
const DEEP_LINE = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}}`;

/** The harnesses whose transcripts are lines (the recorded ones, and Cursor). */
const LINE_HARNESSES: ProviderId[] = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'pi', 'cursor'];

let machine: Machine;
beforeAll(() => {
  machine = Machine.build(LINE_HARNESSES);
});
afterAll(() => machine.cleanup());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

/** The providers as loaded under `CCTOP_PARSE` (read when the modules load). */
async function providers(parse: 'skim' | 'full'): Promise<(id: ProviderId) => Provider> {
  vi.resetModules();
  vi.stubEnv('CCTOP_PARSE', parse === 'full' ? 'full' : '');
  return (await import('./index.js')).providerById;
}

/** The facts, less the line counts the deep line moves. */
const facts = (f: FileFacts) => ({ ...f, lines: 0, badLines: 0, firstBad: null });

/** Write `text` keeping the history's mtime (Cursor dates a session by its file's times). */
function write(path: string, text: string): void {
  writeFileSync(path, text);
  utimesSync(path, HISTORY_MTIME_MS / 1000, HISTORY_MTIME_MS / 1000);
}

/** The largest transcript of a harness, with the deep line written after its second line. */
function deepened(p: ProviderId): { file: HistoryFile; clean: string; deep: string } {
  const file = [...machine.files.get(p)!].sort(
    (a, b) => readFileSync(b.path).length - readFileSync(a.path).length,
  )[0]!;
  const clean = readFileSync(file.path, 'utf8');
  const lines = clean.split('\n');
  const deep = [...lines.slice(0, 2), DEEP_LINE, ...lines.slice(2)].join('\n');
  return { file, clean, deep };
}

describe('a line nested 100,000 levels deep', () => {
  for (const parse of ['skim', 'full'] as const) {
    it.each(LINE_HARNESSES)(
      `%s (${parse}): is bad line 3 of its file, too deep; the rest reads as before`,
      async (p) => {
        const providerById = await providers(parse);
        const { file, clean, deep } = deepened(p);
        try {
          const before = providerById(p).parse(sourceOf(p, file.path), null);
          write(file.path, deep);
          const after = providerById(p).parse(sourceOf(p, file.path), null);
          expect(after.facts.badLines).toBe(before.facts.badLines + 1);
          expect(after.facts.firstBad).toEqual({ line: 3, reason: 'too-deep', file: null });
          expect(after.facts.lines).toBe(before.facts.lines + 1);
          expect(facts(after.facts)).toEqual(facts(before.facts));
          expect(after.ledger).toEqual(before.ledger);
        } finally {
          write(file.path, clean);
        }
      },
    );
  }

  it.each(LINE_HARNESSES)(
    '%s: the conversation and the report’s calls read the other lines in full',
    async (p) => {
      const providerById = await providers('skim');
      const provider = providerById(p);
      const { file, clean, deep } = deepened(p);
      const o = { before: null, agent: null };
      try {
        const conversation = provider.conversation?.(file.path, o);
        const calls = provider.calls?.(file.path);
        write(file.path, deep);
        expect(provider.conversation?.(file.path, o)).toEqual(conversation);
        expect(provider.calls?.(file.path)).toEqual(calls);
      } finally {
        write(file.path, clean);
      }
    },
  );
});
