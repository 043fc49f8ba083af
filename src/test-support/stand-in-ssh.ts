/**
 * A stand-in for ssh in the `--host` unit tests: a shell script, run with the arguments cctop gives
 * ssh, that answers as a remote machine would (or fails as one does), with no server and no network;
 * and the conversation a remote cctop's `chat --json` answers with. cctop runs it through
 * `CCTOP_SSH`.
 *
 * Not here: a real OpenSSH server (`sshd.ts`), or what each stand-in answers: each test says that.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment that makes cctop use a stand-in ssh, and keep its runtime files in its directory. */
export interface SshEnv extends Record<string, string> {
  CCTOP_SSH: string;
  CCTOP_RUNTIME_DIR: string;
}

/** Write `dir`/ssh, a `/bin/sh` script of `lines`, and give the environment that runs it as ssh. */
export function standInSsh(dir: string, lines: string[]): SshEnv {
  const path = join(dir, 'ssh');
  writeFileSync(path, ['#!/bin/sh', ...lines, ''].join('\n'));
  chmodSync(path, 0o755);
  return { CCTOP_SSH: path, CCTOP_RUNTIME_DIR: dir };
}

/**
 * `chat s1 --json` as cctop 0.1.0 prints it (trimmed): one user turn saying `text`, numbered
 * `earlier`, after `earlier` turns left out.
 */
export const remoteChat = (text: string, earlier: number) => ({
  session: 's1',
  provider: 'claude',
  title: 'fix the tests',
  project: '/w/app',
  supported: true,
  turns: [{ seq: earlier, role: 'user', kind: 'message', ts: '', text, clipped: false, tools: [] }],
  earlier,
  note: null,
});
