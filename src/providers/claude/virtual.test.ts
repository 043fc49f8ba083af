/**
 * Calls a script or REPL tool made, which Claude Code 2.1.332 writes as `host-row` records and marks
 * `isVirtual` with the model's call that ran them (`ranByToolUseId`): the records are written here, in
 * the shape that version writes (trimmed), since the lab's pinned Claude Code (2.1.328) has no such
 * tool.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseObject } from '../../model/json.js';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { documentOf, parsed } from '../../test-support/parse.js';
import { lineFromBytes } from './bytes.js';
import { claude } from './index.js';
import { lineFromJson } from './record.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

const SESSION = '7e1d2f0e-1b3a-4c5d-8e9f-0a1b2c3d4e5f';
const base = { cwd: '/w/app', sessionId: SESSION, version: '2.1.332', gitBranch: 'main', isSidechain: false };
let n = 0;
const at = (s: number) => new Date(Date.parse('2026-12-01T09:00:00Z') + s * 1000).toISOString();

const prompt = (s: number, words: string) => ({
  ...base,
  type: 'user',
  rowSource: 'local',
  uuid: `u-${n++}`,
  timestamp: at(s),
  message: { role: 'user', content: words },
});
const calling = (s: number, response: string, id: string, name: string, input: object) => ({
  ...base,
  type: 'assistant',
  uuid: `a-${n++}`,
  timestamp: at(s),
  requestId: `req_${response}`,
  message: {
    model: 'claude-sonnet-4-5',
    id: `msg_${response}`,
    role: 'assistant',
    content: [{ type: 'tool_use', id, name, input }],
    stop_reason: 'tool_use',
    usage: {
      input_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 9_000,
      output_tokens: 40,
    },
  },
});
const result = (s: number, id: string, content: string, isError = false, extra: object = {}) => ({
  ...base,
  type: 'user',
  uuid: `u-${n++}`,
  timestamp: at(s),
  ...extra,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
});
/**
 * A call the REPL made, as the host writes it: a `host-row` (or a row of the assistant's type marked
 * virtual) holding the tool use, tied to the REPL's call.
 */
const hostCall = (s: number, id: string, name: string, type = 'host-row') => ({
  ...base,
  type,
  isVirtual: true,
  ranByToolUseId: 'toolu_repl',
  uuid: `h-${n++}`,
  timestamp: at(s),
  message: {
    role: 'assistant',
    content: [{ type: 'tool_use', id, name, input: { command: 'npm test' } }],
  },
});
const virtualResult = (s: number, id: string, isError: boolean) =>
  result(s, id, isError ? 'Exit code 1' : 'ok', isError, { isVirtual: true, ranByToolUseId: 'toolu_repl' });

function session(records: unknown[]): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const path = join(t.dir, `${SESSION}.jsonl`);
  writeFileSync(path, jsonl(...records));
  return path;
}

/** The model ran one REPL call; inside it the host ran Bash twice and Read once, one Bash failing. */
const RECORDS = [
  prompt(0, 'run the checks in the REPL'),
  calling(2, '01', 'toolu_repl', 'REPL', { code: 'await bash("npm test"); await read("a.ts")' }),
  hostCall(3, 'toolu_v1', 'Bash'),
  virtualResult(4, 'toolu_v1', true),
  hostCall(5, 'toolu_v2', 'Bash'),
  virtualResult(6, 'toolu_v2', false),
  hostCall(7, 'toolu_v3', 'Read', 'assistant'),
  virtualResult(8, 'toolu_v3', false),
  result(9, 'toolu_repl', 'done: 1 of 2 commands failed'),
];

describe('a script or REPL call’s own calls (Claude Code 2.1.332 host rows) are not the model’s', () => {
  it('the session counts the one call the model made and no failure, whatever the script did inside', () => {
    const s = documentOf([parsed('claude', session(RECORDS))]).sessions[0]!;
    expect([s.tools.calls, s.tools.failed]).toEqual([1, 0]);
  });

  it("the report's calls list the REPL call alone, answered and not failed", () => {
    const log = claude.calls!(session(RECORDS));
    expect(log.calls.map((c) => [c.name, c.failed])).toEqual([['REPL', false]]);
  });

  it('the fast extractor reads each host row as a full parse does: no calls, no results, no usage', () => {
    for (const r of RECORDS) {
      const bytes = Buffer.from(JSON.stringify(r));
      const fast = lineFromBytes(bytes, 0, bytes.length);
      expect(fast).toEqual(lineFromJson(parseObject(bytes.toString('utf8'))!));
    }
    const host = Buffer.from(JSON.stringify(RECORDS[2]));
    expect(lineFromBytes(host, 0, host.length).toolUses).toEqual([]);
    // A row marked only by the call that ran it is virtual too.
    const marked = Buffer.from(
      JSON.stringify({ ...result(10, 'toolu_v4', 'x', true), ranByToolUseId: 'toolu_repl' }),
    );
    expect(lineFromBytes(marked, 0, marked.length).toolResults).toEqual([]);
    expect(lineFromJson(parseObject(marked.toString('utf8'))!).toolResults).toEqual([]);
  });
});
