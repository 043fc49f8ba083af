/**
 * The warm snapshot serves only what it can prove fresh: after a one-shot's answer it prints the same
 * bytes, and it declines, saying why, when a transcript grew, a file appeared, the last full look is
 * over a minute old, or the file is damaged. What it deliberately misses (an append to a transcript
 * quiet for over an hour, in a directory that did not change) is pinned here too, with how long.
 */

import { appendFileSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheDir } from '../paths.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { oneShotOptions, snapshotIn } from '../test-support/snapshot.js';
import { paint } from '../views/cli/color.js';
import { renderList, renderRows, rowOfFacts } from '../views/cli/list.js';
import { KEEP_AFTER_QUIET_MS } from './keep-one-shot.js';
import { GROWING_MS, readWarm, SWEEP_EVERY_MS, type WarmReading } from './warm.js';
import { DOC_FILE } from './warm-doc-layout.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');
const isSnapshot = (name: string) => name.startsWith('warm-') && name.endsWith('.snap');

describe('the warm snapshot', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const o = () => oneShotOptions(home.env);
  const answer = (nowMs = NOON) => snapshotIn(home.env, { nowMs });
  const warm = (nowMs = NOON): WarmReading => readWarm({ ...o(), nowMs });
  const reason = (r: WarmReading) => (r.kind === 'declined' ? r.reason : 'answered');
  /** A transcript last written `ago` ms before noon. */
  const transcript = (name: string, ago: number) => {
    const at = new Date(NOON - ago).toISOString();
    return home.write(home.claudeFile('-w', name), claudeResponse(name, 5, at, 2), NOON - ago);
  };

  it('prints, after an answer through the index, the same bytes the index printed', async () => {
    transcript('a.jsonl', 10 * 60_000);
    transcript('b.jsonl', 3 * GROWING_MS);
    expect(reason(warm())).toBe('no snapshot is kept for these options');
    const indexed = await answer();
    const r = warm(NOON + 1000);
    expect(r.kind).toBe('answered');
    if (r.kind !== 'answered') return;
    expect(r.snapshot.json().toString()).toBe((await answer(NOON + 1000)).json().toString());
    expect(r.snapshot.count).toBe(indexed.document.sessions.length);
  });

  it('prints the --list table from its kept facts as the index prints it from the document, hostile titles made safe', async () => {
    const at = (ago: number) => new Date(NOON - ago).toISOString();
    const prompt = (text: string, ago: number) =>
      jsonl({
        type: 'user',
        sessionId: 's',
        cwd: '/w',
        uuid: `p-${ago}`,
        timestamp: at(ago),
        message: { role: 'user', content: text },
      });
    home.write(
      home.claudeFile('-w', 'a.jsonl'),
      prompt('fix the \u001b[2Jbuild', 20 * 60_000) + claudeResponse('a', 5, at(10 * 60_000), 2),
      NOON - 10 * 60_000,
    );
    transcript('b.jsonl', 3 * GROWING_MS);
    await answer();
    const r = warm(NOON + 1000);
    if (r.kind !== 'answered') throw new Error(`the snapshot declined: ${reason(r)}`);
    const plain = paint(false, {});
    const kept = renderRows(
      r.snapshot.listed().map((f) => rowOfFacts(f, f)),
      'retail',
      100,
      plain,
      NOON + 1000,
    );
    expect(kept).toEqual(renderList((await answer(NOON + 1000)).document, 100, plain, NOON + 1000));
    expect(kept.join('\n')).toContain('fix the');
    expect(kept.join('\n')).not.toContain('\u001b');
  });

  it('declines when a transcript that may be growing grew, or a new one appeared', async () => {
    const a = transcript('a.jsonl', 10 * 60_000);
    await answer();
    appendFileSync(a, claudeResponse('more', 3, new Date(NOON).toISOString(), 1));
    utimesSync(a, NOON / 1000, NOON / 1000);
    expect(reason(warm())).toBe(`${a} changed`);
    // Once nothing has been written for a while, the patched answer is kept warm.
    const quiet = NOON + KEEP_AFTER_QUIET_MS;
    await answer(quiet);
    expect(warm(quiet).kind).toBe('answered');
    transcript('c.jsonl', 60_000);
    expect(reason(warm(quiet))).toMatch(/ changed$/);
  });

  it('keeps no patched answer warm while a transcript is being written, but the index keeps it; the first run after it is quiet keeps it warm', async () => {
    const a = transcript('a.jsonl', 10 * 60_000);
    await answer();
    const before = readFileSync(join(cacheDir(home.env), readdirSync(cacheDir(home.env)).find(isSnapshot)!));
    appendFileSync(a, claudeResponse('more', 3, new Date(NOON).toISOString(), 1));
    utimesSync(a, NOON / 1000, NOON / 1000);
    // Written a moment ago: the answer is patched and printed, the snapshot left as it was.
    const writing = await answer(NOON + KEEP_AFTER_QUIET_MS - 1000);
    expect(writing.strategy).toBe('patched');
    expect(readFileSync(join(cacheDir(home.env), readdirSync(cacheDir(home.env)).find(isSnapshot)!))).toEqual(
      before,
    );
    expect(reason(warm(NOON + KEEP_AFTER_QUIET_MS - 1000))).toBe(`${a} changed`);
    // Quiet since: answered from the index as it kept the patch, and kept warm; the snapshot prints
    // what the index printed.
    const quiet = await answer(NOON + KEEP_AFTER_QUIET_MS);
    expect(quiet.strategy).toBe('kept');
    const r = warm(NOON + KEEP_AFTER_QUIET_MS);
    expect(r.kind === 'answered' && r.snapshot.json().toString()).toBe(quiet.json().toString());
  });

  it('misses an append to a transcript quiet for over an hour until the next full look, a minute at most', async () => {
    const old = transcript('old.jsonl', 3 * GROWING_MS);
    await answer();
    const st = readFileSync(old);
    // Appended and dated back as it was: only a full look at its size sees it.
    appendFileSync(old, claudeResponse('late', 3, new Date(NOON - 3 * GROWING_MS).toISOString(), 1));
    utimesSync(old, (NOON - 3 * GROWING_MS) / 1000, (NOON - 3 * GROWING_MS) / 1000);
    expect(readFileSync(old).length).toBeGreaterThan(st.length);
    expect(warm(NOON + SWEEP_EVERY_MS).kind).toBe('answered');
    expect(reason(warm(NOON + SWEEP_EVERY_MS + 1))).toBe(
      'the last full look at the transcripts is over a minute old',
    );
  });

  it('declines a damaged snapshot, and the index answers as before', async () => {
    transcript('a.jsonl', 10 * 60_000);
    await answer();
    const dir = cacheDir(home.env);
    // The snapshot, not the warm document kept beside it for a bare `--json`.
    const file = join(dir, readdirSync(dir).find((n) => n.startsWith('warm-') && n !== DOC_FILE)!);
    const b = readFileSync(file);
    b[b.length - 3] = b[b.length - 3]! ^ 0xff;
    writeFileSync(file, b);
    utimesSync(file, NOON / 1000, NOON / 1000);
    expect(reason(warm())).toBe('the snapshot is damaged');
    expect((await answer()).strategy).toBe('kept');
  });

  it('is not kept by a run that reads without the index (--no-cache)', async () => {
    transcript('a.jsonl', 10 * 60_000);
    await snapshotIn(home.env, { nowMs: NOON, useIndex: false });
    expect(reason(warm())).toBe('no snapshot is kept for these options');
  });
});
