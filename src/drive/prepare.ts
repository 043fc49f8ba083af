/**
 * Preparing a run: everything decided before the agent is spawned. The request's spec and plan, the
 * child's environment, the credential it is expected to use, where its executable is, the named
 * session it takes, the baseline read before the agent adds to it, the schema file, and the command
 * line.
 *
 * It exists so the run (`run.ts`) keeps only what happens once the agent is running. The steps fill
 * a `Setup` one by one and throw where they cannot go on, so a failure part-way leaves what was
 * already taken (a lease, a temporary folder) on the setup for the run to give back when it
 * finishes. It spawns nothing and reads no output; it does not choose the conversation either (that
 * needs the running run to report to).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { specFor } from './acp/spec.js';
import { expectCredential } from './agents/credentials.js';
import { type AgentSpec, type Baseline, checkCommandLine, type Invocation, spec } from './agents/index.js';
import type { CredentialSource } from './credentials.js';
import { childEnv } from './env.js';
import { DriveError } from './errors.js';
import { locate } from './locate.js';
import { claimName } from './named.js';
import { type Plan, planRequest, type Request } from './request.js';
import type { Lease } from './sessions.js';

/** What a run decided before its spawn, as far as it got. */
export interface Setup {
  spec: AgentSpec;
  bin: string;
  plan: Plan | null;
  /** What the conversation had counted before this run; unknown until the run has started. */
  baseline: Baseline;
  /** The credential the run is expected to use, read before the spawn; null until then. */
  credential: CredentialSource | null;
  lease: Lease | null;
  bindName: ((session: string) => void) | null;
  tempDir: string | null;
  /** The environment the agent was given: where its session files are, for `settle`. */
  env: NodeJS.ProcessEnv;
  /** The program an `acp` run starts, whose provider reads its files; null on other runs. */
  acpProgram: string | null;
}

/** A setup before any step: `prepare` finds the request's own spec (and refuses an unknown agent); until then any will do. */
export function emptySetup(request: Request): Setup {
  const first = spec('claude');
  return {
    spec: first,
    bin: request.bin ?? first.bin,
    plan: null,
    baseline: { kind: 'unknown' },
    credential: null,
    lease: null,
    bindName: null,
    tempDir: null,
    env: {},
    acpProgram: null,
  };
}

/** What the spawn needs once the setup is complete. */
export interface Prepared {
  path: string;
  inv: Invocation;
  plan: Plan;
}

/** Plan the run, take its named session, and write the command line; throws when it cannot start. */
export function prepare(request: Request, s: Setup, signal: AbortSignal | undefined): Prepared {
  const agent = request.agent;
  s.spec = specFor(request);
  s.bin = request.bin ?? s.spec.bin;
  const plan = planRequest(request, s.spec.caps);
  s.plan = plan;
  if (signal?.aborted) throw new DriveError({ kind: 'cancelled', agent, bin: s.bin });
  const parent = request.parentEnv ?? process.env;
  const env = childEnv(parent, request.env ?? 'minimal', s.spec.credentials, request.setEnv ?? {});
  s.env = env;
  const program = request.acp?.command[0];
  s.acpProgram = program === undefined ? null : basename(program);
  s.credential = expectCredential(agent, request.auth, env, plan);
  const path = locate(s.bin, env);
  if (path === null) {
    throw new DriveError({ kind: 'not_installed', agent, bin: s.bin, hint: s.spec.installHint });
  }
  if (request.session !== undefined) {
    const claim = claimName(request.session, agent, s.spec, plan.cwd, parent);
    s.lease = claim.lease;
    plan.session = claim.session;
    s.bindName = claim.bind;
  }
  // Before the spawn: once running, the agent adds this run to the records the baseline is read from.
  s.baseline = s.spec.baseline(plan, env);
  let schemaFile: string | null = null;
  if (plan.schema !== null && s.spec.schemaInFile) {
    s.tempDir = mkdtempSync(join(tmpdir(), 'cctop-drive-'));
    schemaFile = join(s.tempDir, 'schema.json');
    writeFileSync(schemaFile, JSON.stringify(plan.schema), { mode: 0o600 });
  }
  const inv = s.spec.invocation(plan, schemaFile);
  checkCommandLine(agent, inv);
  return { path, inv, plan };
}

/** Give back what the setup took: the named session's lease, then the schema's folder. */
export function releaseSetup(s: Setup): void {
  s.lease?.release();
  if (s.tempDir !== null) rmSync(s.tempDir, { recursive: true, force: true });
}
