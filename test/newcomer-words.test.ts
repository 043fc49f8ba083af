/**
 * What a newcomer reads when something is missing: a session with nothing recorded, a price fetch
 * with no network. Each sentence says what is absent and why, never a word that means something
 * else ("no price" for a session with no usage) or a bare "fetch failed". Runs the built CLI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/test-support/cli-run.js';
import { FakeHome, REPO } from '../src/test-support/corpus.js';
import { freePort } from '../src/test-support/spawn-ready.js';

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

/** The lab's recorded Codex run (0.169.0, `text` case), as its rollout file. */
function labRollout(): { name: string; text: string } {
  const dir = join(
    REPO,
    'lab',
    'fixtures',
    'codex',
    'text',
    'home',
    '.codex',
    'sessions',
    '2026',
    '12',
    '01',
  );
  const name = readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
  return { name, text: readFileSync(join(dir, name), 'utf8') };
}

describe('a session that recorded no usage', () => {
  it('a Codex rollout without token records reads "no usage recorded", not "no price"', async () => {
    const { name, text } = labRollout();
    const withoutTokens = text
      .split('\n')
      .filter((l) => !l.includes('"token_count"'))
      .join('\n');
    expect(withoutTokens).not.toBe(text);
    home.write(home.codexFile(name, '2026/12/01'), withoutTokens, Date.parse('2026-12-01T22:00:00Z'));
    const r = await runCli(['--list'], { ...home.env, COLUMNS: '100' });
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('Codex — 1 session · no usage recorded');
  });
});

describe('cctop pricing update without the network', () => {
  it('says why the fetch failed and names CCTOP_PRICES_URL', async () => {
    // A port that was free a moment ago: nothing listens, so the connection is refused at once.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/data.json`;
    const r = await runCli(['pricing', 'update'], { ...home.env, CCTOP_PRICES_URL: url });
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `cctop: could not update prices from ${url}: 127.0.0.1:${port} refused the connection (ECONNREFUSED).`,
    );
    expect(r.err).toContain('set CCTOP_PRICES_URL to a copy it can');
  });

  it('takes the catalogue from a file:// copy when CCTOP_PRICES_URL names one', async () => {
    const copy = home.write(join(home.dir, 'data.json'), JSON.stringify([{ id: 'anthropic', models: [] }]));
    const r = await runCli(['pricing', 'update'], { ...home.env, CCTOP_PRICES_URL: `file://${copy}` });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Saved 1 providers' prices to /);
  });
});
