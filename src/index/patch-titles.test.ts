/**
 * A patch rebuilds a session whose transcript grew without running the secret rules on a title they
 * already found clean. These are the cases where that shortcut could go wrong: a title holding a
 * secret, a title that changed, and a title that now holds one. Each patched answer must mask what a
 * cold read masks.
 */
import { appendFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../model/document.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { plantedSecrets } from '../test-support/planted-secrets.js';
import { snapshotIn } from '../test-support/snapshot.js';
import type { SnapshotOptions } from './snapshot.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');
const KEY = plantedSecrets().find((p) => p.kind === 'OpenAI key')!.value;

/** The person's prompt that opens session `s`: what titles it until something better does. */
const prompt = (s: string, text: string, at: string): string =>
  jsonl({
    type: 'user',
    sessionId: s,
    cwd: '/w',
    uuid: `p-${s}-${at}`,
    timestamp: at,
    message: { role: 'user', content: text },
  });

describe('titles of sessions a patch rebuilds', () => {
  let home: FakeHome;
  const file = (name: string) => home.claudeFile('-w', `${name}.jsonl`);

  beforeEach(() => {
    home = new FakeHome();
    home.write(
      file('secret'),
      prompt('secret', `deploy with ${KEY} please`, '2026-11-29T10:00:00Z') +
        claudeResponse('1', 5, '2026-11-29T10:00:05Z'),
    );
    home.write(
      file('plain'),
      prompt('plain', 'fix the flaky login test', '2026-11-29T09:00:00Z') +
        claudeResponse('2', 9, '2026-11-29T09:00:05Z'),
    );
  });
  afterEach(() => home.cleanup());

  const snap = (o: Partial<SnapshotOptions> = {}) => snapshotIn(home.env, { nowMs: NOON, ...o });
  const titles = (json: Buffer) =>
    Object.fromEntries((JSON.parse(json.toString()) as SessionDocument).sessions.map((s) => [s.id, s.title]));

  /** The run after a change: answered by a patch, with the titles a cold read gives. */
  async function patchedTitles(): Promise<Record<string, string | null>> {
    const s = await snap();
    expect(s.strategy).toBe('patched');
    const cold = await snap({ useIndex: false });
    expect(titles(s.json())).toEqual(titles(cold.json()));
    return titles(s.json());
  }

  it('a grown session whose first prompt holds a key keeps it masked', async () => {
    await snap();
    appendFileSync(file('secret'), claudeResponse('3', 7, '2026-11-29T10:01:00Z'));
    appendFileSync(file('plain'), claudeResponse('4', 7, '2026-11-29T09:01:00Z'));
    const t = await patchedTitles();
    expect(t.secret).toBe(`deploy with ${KEY.slice(0, 4)}…[redacted: OpenAI key] please`);
    expect(t.plain).toBe('fix the flaky login test');
  });

  it('a clean title that a grown transcript renames to one holding a key is masked', async () => {
    await snap();
    appendFileSync(
      file('plain'),
      jsonl({ type: 'custom-title', sessionId: 'plain', customTitle: `key ${KEY}` }),
    );
    const t = await patchedTitles();
    expect(t.plain).toBe(`key ${KEY.slice(0, 4)}…[redacted: OpenAI key]`);
  });

  it('a title written as a mask would read is checked again, and kept as written', async () => {
    const written = 'sk-p…[redacted: OpenAI key] was rotated';
    await snap();
    appendFileSync(file('plain'), jsonl({ type: 'custom-title', sessionId: 'plain', customTitle: written }));
    expect((await patchedTitles()).plain).toBe(written);
    appendFileSync(file('plain'), claudeResponse('5', 3, '2026-11-29T09:02:00Z'));
    expect((await patchedTitles()).plain).toBe(written);
  });
});
