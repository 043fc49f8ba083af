/**
 * One word for the harness: `--harness` is the flag (the word the tables, `--by harness` and the
 * config use), and `--provider`, its first name, still means the same. Runs the built CLI on the
 * demo history.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';

const home = new FakeHome();
afterAll(() => home.cleanup());
const env = () => ({ ...home.env });

describe('--harness and --provider', () => {
  it('--harness codex lists what --provider codex lists', async () => {
    const e = env();
    const byHarness = await runCli(['--demo', '--list', '--harness', 'codex'], { ...e, COLUMNS: '100' });
    const byProvider = await runCli(['--demo', '--list', '--provider=codex'], { ...e, COLUMNS: '100' });
    expect(byHarness.code).toBe(0);
    expect(byHarness.out.split('\n')[0]).toMatch(/^Codex — 3 sessions/);
    expect(byHarness.out).toBe(byProvider.out);
  });

  it('a harness it does not know is refused in the word the help uses', async () => {
    const r = await runCli(['--list', '--harness', 'emacs'], env());
    expect(r.code).toBe(2);
    expect(r.err).toContain('--harness emacs: expected one of claude, codex');
  });

  it('the help names --harness', async () => {
    const r = await runCli(['--help'], env());
    expect(r.out).toContain('--harness claude,codex');
  });
});
