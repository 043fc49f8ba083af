/**
 * `--demo` goes anywhere on the line, like every option: a command it cannot apply to says why, in
 * words, instead of calling it an unknown option (issue 28, finding 5).
 */
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

async function cctop(...args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await main(args, {
    out: () => undefined,
    err: (s) => err.push(s),
    isTty: false,
    columns: 80,
    env: { HOME: '/nonexistent', PATH: process.env.PATH ?? '' },
  });
  return { code, err: err.join('\n') };
}

describe('--demo with a command that acts on this machine', () => {
  for (const [command, ...args] of [
    ['watch'],
    ['statusline'],
    ['hooks', 'install'],
    ['pricing', 'update'],
    ['push'],
    ['store', 'init'],
    ['config'],
    ['exec', 'claude', 'hi'],
  ])
    it(`cctop ${command} --demo says why the demo does not apply, and exits 2`, async () => {
      for (const line of [
        [command!, ...args, '--demo'],
        ['--demo', command!, ...args],
      ]) {
        const r = await cctop(...line);
        expect(r.code).toBe(2);
        expect(r.err).toMatch(new RegExp(`^cctop: --demo does not apply to ${command}: \\S.{20,}$`));
        expect(r.err).not.toContain('unknown option');
      }
    });
});
