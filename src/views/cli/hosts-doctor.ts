/**
 * `cctop doctor --host H`: the whole round trip to each host (ssh, log in, the remote cctop's version,
 * its session document), and when a step fails, ssh's own words beside the fix they mean. The hosts
 * are the ones `--list` would read (`--host`, else `CCTOP_HOSTS`, else the config), checked at once.
 *
 * Not here: what each failure means (`hosts/failure.ts`).
 */
import {
  controlPath,
  explain,
  type Failed,
  type HostReading,
  type HostSpec,
  readHost,
  remoteCommand,
  runFailure,
  runRemote,
  sshProgram,
} from '../../hosts/index.js';
import { printable, safeLine } from '../terminal-text.js';
import { type Paint, paint } from './color.js';
import { counted } from './format.js';
import { hostsOf, passedOn } from './hosts.js';
import type { Io } from './main.js';

/** A host's checks, as lines and whether it passed. */
interface Checked {
  lines: string[];
  ok: boolean;
}

/** The remote cctop's `--version` line, or why there is none. */
async function remoteVersion(
  host: HostSpec,
  io: Io,
): Promise<{ kind: 'ok'; version: string } | { kind: 'failed'; failed: Failed }> {
  const run = await runRemote(host, ['--version'], { env: io.env });
  const failed = runFailure(run);
  if (failed !== null) return { kind: 'failed', failed };
  const line = run.kind === 'exited' ? run.stdout.toString('utf8').split('\n')[0]!.trim() : '';
  return { kind: 'ok', version: safeLine(line.slice(0, 200)) };
}

function failedLines(host: HostSpec, f: Failed, p: Paint): string[] {
  const lines = [
    `  ${p.bold(safeLine(host.name))}  ${p.red('✖')} ${safeLine(explain(host.name, f.failure))}`,
  ];
  if (f.said !== '') lines.push(p.dim(`      ssh said: ${safeLine(f.said)}`));
  return lines;
}

async function checkHost(
  host: HostSpec,
  io: Io,
  values: Record<string, unknown>,
  p: Paint,
): Promise<Checked> {
  const version = await remoteVersion(host, io);
  if (version.kind === 'failed') return { lines: failedLines(host, version.failed, p), ok: false };
  const r: HostReading = await readHost(host, { env: io.env, args: passedOn(values) });
  if (r.kind === 'failed') return { lines: failedLines(host, r, p), ok: false };
  const n = r.sessions.length;
  const skipped = r.skipped > 0 ? `, ${r.skipped} unreadable` : '';
  return {
    lines: [
      `  ${p.bold(safeLine(host.name))}  ${p.green('ok')} ${version.version}, ${counted(n, 'session')}${skipped}, answered in ${(r.ms / 1000).toFixed(1)} s`,
    ],
    ok: true,
  };
}

/** How cctop reaches the hosts: the ssh program, the command, the master sockets. */
function howLines(hosts: readonly HostSpec[], io: Io, p: Paint): string[] {
  const first = hosts[0]!;
  const control = controlPath(first, io.env);
  return [
    p.dim(
      `  runs: ${sshProgram(io.env)} -o BatchMode=yes … ${safeLine(first.name)} ${safeLine(remoteCommand(first, ['--json']))}`,
    ),
    p.dim(
      control === null
        ? '  no shared connection: the runtime directory is unusable or too deep for a socket path, so each poll logs in afresh'
        : `  shared connections (ControlMaster) in ${safeLine(control.replace(/\/m-[0-9a-f]+$/, ''))}`,
    ),
  ];
}

/**
 * Start checking the hosts (while the local doctor reads); the returned function prints the section
 * and says whether every host passed. Null when no host is named anywhere.
 */
export function startHostChecks(io: Io, values: Record<string, unknown>): (() => Promise<boolean>) | null {
  const hosts = hostsOf(io, values);
  if (hosts.length === 0) return null;
  const p = paint(io.isTty, io.env);
  const pending = Promise.all(hosts.map((h) => checkHost(h, io, values, p)));
  return async () => {
    const checked = await pending;
    const out = (line: string) => io.out(printable(line, p));
    out('');
    out(p.bold('Hosts'));
    for (const line of howLines(hosts, io, p)) out(line);
    for (const c of checked) for (const line of c.lines) out(line);
    return checked.every((c) => c.ok);
  };
}
