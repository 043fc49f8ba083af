/**
 * Reading other machines: each host's `cctop --json` over ssh, all hosts at once, each answer read
 * as hostile input and each failure told as its fix. A host that fails is a result like any other,
 * never an exception: the caller shows the local rows whatever the hosts do.
 *
 * Not here: when to poll (the live engine), or how rows are shown (the views).
 */
import { DOCUMENT_VERSION, type SessionDoc } from '../model/document.js';
import type { Env } from '../providers/types.js';
import { type Failed, runFailure } from './failure.js';
import { readRemoteDocument } from './remote-doc.js';
import { runRemote } from './ssh.js';
import type { HostSpec } from './target.js';

export type HostReading =
  | {
      kind: 'read';
      host: HostSpec;
      /** The host's sessions, each marked with `host`. */
      sessions: SessionDoc[];
      /** Sessions in its document that could not be read (a field every view needs was missing). */
      skipped: number;
      /** How long the round trip took (ssh, log in, the remote cctop), in ms. */
      ms: number;
    }
  | ({ kind: 'failed'; host: HostSpec; ms: number } & Failed);

export interface ReadOptions {
  env: Env;
  /** The flags passed on to the remote cctop after `--json` (`--plan`, `--provider`, …), as typed. */
  args?: readonly string[];
  waitMs?: number;
  signal?: AbortSignal;
}

/** One host's sessions, or why not. */
export async function readHost(host: HostSpec, o: ReadOptions): Promise<HostReading> {
  const run = await runRemote(host, ['--json', ...(o.args ?? [])], {
    env: o.env,
    ...(o.waitMs !== undefined ? { waitMs: o.waitMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const ms = run.kind === 'no-ssh' ? 0 : run.ms;
  const failed = runFailure(run);
  if (failed !== null || run.kind !== 'exited') {
    const f = failed ?? { failure: { kind: 'ssh-failed' as const }, said: '' };
    return { kind: 'failed', host, ms, ...f };
  }
  const doc = readRemoteDocument(run.stdout);
  switch (doc.kind) {
    case 'not-a-document':
      return { kind: 'failed', host, ms, failure: { kind: 'not-a-document', why: doc.why }, said: '' };
    case 'version':
      return {
        kind: 'failed',
        host,
        ms,
        failure: { kind: 'version', remote: doc.remote, ours: DOCUMENT_VERSION },
        said: '',
      };
    case 'read':
      for (const s of doc.sessions) s.host = host.name;
      return { kind: 'read', host, sessions: doc.sessions, skipped: doc.skipped, ms };
  }
}

/** Every host at once; the answers in the order the hosts were given. */
export function readHosts(hosts: readonly HostSpec[], o: ReadOptions): Promise<HostReading[]> {
  return Promise.all(hosts.map((h) => readHost(h, o)));
}
