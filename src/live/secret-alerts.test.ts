/**
 * A credential written into a session while cctop watches is told once, by its kind and its ends,
 * never in full; what the transcript held before cctop first saw the session is not news. The
 * transcript is Claude Code's, written turn by turn as 2.1.328 writes it, and read by its real reader.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/index.js';
import type { SessionDoc } from '../model/document.js';
import { LocalTime } from '../model/time.js';
import { claude } from '../providers/claude/index.js';
import { claudeRecord, prompt, textAnswer } from '../test-support/claude-records.js';
import { tempDir } from '../test-support/corpus.js';
import { plantedSecrets } from '../test-support/planted-secrets.js';
import { docAt, MINUTE, sessionDoc, T0 } from '../test-support/session-doc.js';
import { alertText } from '../views/alert-text.js';
import { type Alert, AlertWatcher, LOOP_CHECK_EVERY_MS } from './alerts.js';
import { DeepReader } from './deep.js';
import { secretsIn } from './secrets-read.js';

const ID = '5ec7e75a-0000-4000-8000-0000000000a1';
const MODEL = 'claude-sonnet-4-5-20250929';
const [OLD, NEW, LATER] = plantedSecrets().filter((p) => p.kind !== 'private key');

let dir: { dir: string; cleanup: () => void };
let file: string;
beforeEach(() => {
  dir = tempDir('cctop-secret-alerts-');
  file = join(dir.dir, `${ID}.jsonl`);
});
afterEach(() => dir.cleanup());

const say = (atMs: number, n: number, text: string) =>
  appendFileSync(file, claudeRecord(ID, '/w', atMs, `a${n}`, textAnswer(n, text, MODEL, 10, 5)));

function watcher(on = true) {
  const later: Alert[] = [];
  const w = new AlertWatcher({
    env: { CCTOP_CACHE_DIR: dir.dir },
    calls: () => Promise.reject(new Error('not read')),
    secrets: async (_s, from) => secretsIn(claude, file, from),
    later: (a) => later.push(...a),
  });
  const config = { ...defaultConfig(), alerts: { ...defaultConfig().alerts, secrets: on } };
  const look = async (nowMs: number, lastActiveMs: number) => {
    const s: SessionDoc = sessionDoc(ID, { file, lastActiveAt: new Date(lastActiveMs).toISOString() });
    w.update({ doc: docAt([s], nowMs), usage: () => [], config, nowMs, time: new LocalTime('UTC') });
    await w.settled();
  };
  return { later, look };
}

describe('a secret written into a watched session', () => {
  it('is told once, by kind and ends, and what was there at first sight is not', async () => {
    writeFileSync(file, claudeRecord(ID, '/w', T0 - 5 * MINUTE, 'u1', prompt(`use ${OLD!.line}`)));
    const { later, look } = watcher();
    await look(T0, T0 - 5 * MINUTE);
    say(T0 + MINUTE, 2, `Found it: ${NEW!.line}`);
    await look(T0 + MINUTE, T0 + MINUTE);
    expect(later).toHaveLength(1);
    const [a] = later;
    expect(a).toMatchObject({ kind: 'secret', found: [{ kind: NEW!.kind, head: NEW!.value.slice(0, 4) }] });
    const words = JSON.stringify(a) + JSON.stringify(alertText(a!));
    for (const p of [OLD!, NEW!]) expect(words).not.toContain(p.value);
    expect(alertText(a!).title).toBe('A secret in: the 5ec7e75a-0000-4000-8000-0000000000a1 task');

    // Nothing new written: nothing told, however often it looks.
    say(T0 + 2 * MINUTE, 3, 'All done, nothing else to report.');
    await look(T0 + 2 * MINUTE + LOOP_CHECK_EVERY_MS, T0 + 2 * MINUTE);
    expect(later).toHaveLength(1);

    say(T0 + 3 * MINUTE, 4, `And another: ${LATER!.line}`);
    await look(T0 + 3 * MINUTE + 2 * LOOP_CHECK_EVERY_MS, T0 + 3 * MINUTE);
    expect(later.map((x) => (x.kind === 'secret' ? x.found.map((f) => f.kind) : []))).toEqual([
      [NEW!.kind],
      [LATER!.kind],
    ]);
  });

  it('is not looked for when alerts.secrets is off', async () => {
    writeFileSync(file, claudeRecord(ID, '/w', T0 - 5 * MINUTE, 'u1', prompt('hello')));
    const { later, look } = watcher(false);
    await look(T0, T0 - 5 * MINUTE);
    say(T0 + MINUTE, 2, `Found it: ${NEW!.line}`);
    await look(T0 + MINUTE, T0 + MINUTE);
    expect(later).toEqual([]);
  });

  it('the live views read it on their reading thread, from where the last read stopped', async () => {
    writeFileSync(file, claudeRecord(ID, '/w', T0, 'u1', prompt(`use ${OLD!.line}`)));
    say(T0 + 1000, 1, 'Noted.');
    appendFileSync(file, claudeRecord(ID, '/w', T0 + 2000, 'u2', prompt('now look in the config')));
    const deep = new DeepReader();
    try {
      const first = await deep.secrets('claude', file, null);
      expect(first.secrets.map((f) => f.kind)).toEqual([OLD!.kind]);
      say(T0 + MINUTE, 2, `Found it: ${NEW!.line}`);
      const next = await deep.secrets('claude', file, first.resume);
      expect(next.began.offset).toBeGreaterThan(0);
      expect(next.secrets.map((f) => f.kind)).toEqual([NEW!.kind]);
    } finally {
      deep.close();
    }
  });
});
