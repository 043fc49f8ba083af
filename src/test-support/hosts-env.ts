/**
 * The two machines of the `--host` tests: a real sshd on 127.0.0.1 (`sshd.ts`), a local home the
 * built cctop runs in, and a "remote" home the cctop behind ssh reads; the environment that points
 * the local cctop at that sshd; and the clean-up of all three.
 *
 * Not here: what the homes hold, which aliases the sshd answers to, or when it starts: each suite
 * says that itself.
 */
import { FakeHome } from './corpus.js';
import { TestSshd } from './sshd.js';

export interface Hosts {
  sshd: TestSshd;
  local: FakeHome;
  remote: FakeHome;
}

/** A fresh sshd (not started yet) and two empty homes. */
export function newHosts(): Hosts {
  return { sshd: new TestSshd(), local: new FakeHome(), remote: new FakeHome() };
}

/**
 * The local cctop's environment: the local home, the test sshd's ssh wrapper and runtime directory,
 * and `waitS` seconds for each host to answer (`CCTOP_HOST_TIMEOUT`); `extra` is added last.
 */
export function hostsEnv(
  h: Hosts,
  waitS: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ...h.local.env,
    CCTOP_SSH: h.sshd.ssh,
    CCTOP_RUNTIME_DIR: h.sshd.runtimeDir,
    CCTOP_HOST_TIMEOUT: String(waitS),
    ...extra,
  };
}

/** Stop the sshd and remove everything: safe when set-up failed part way (or never ran). */
export async function cleanupHosts(h: Partial<Hosts> | undefined): Promise<void> {
  await h?.sshd?.cleanup();
  h?.local?.cleanup();
  h?.remote?.cleanup();
}
