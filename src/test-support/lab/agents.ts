/**
 * How the lab runs each real agent CLI: where the pinned install is (`lab/agents.json`, installed by
 * `npm run agents`), how to give it a home of its own pointed at the stand-in model server, and the
 * command line for one headless prompt. Every agent runs with a fresh `$HOME` (and XDG folders under
 * it), stdin closed, a minimal environment, and the lab server as its HTTP(S) proxy, so nothing it
 * does reaches the user's files or the network.
 *
 * A recipe per agent lives in `agents/<id>.ts`; this module is the part they share.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO } from '../corpus.js';

/** The agent CLIs the lab runs as themselves, each read by the provider of the same name. */
export type LabCliId = 'claude' | 'codex' | 'gemini' | 'qwen' | 'opencode' | 'pi' | 'copilot' | 'openclaw';

/** The ACP adapters the lab runs, each wrapping one of the CLIs (`test/lab/drive-acp-adapters.test.ts`). */
export type LabAdapterId = 'claude-acp' | 'codex-acp';

export type LabAgentId = LabCliId | LabAdapterId;

export interface Pin {
  package: string;
  version: string;
  bin: string;
  /** The Node release the agent needs when the project's is too old for it (OpenClaw: 24). */
  node?: string;
}

/** Longest one lab run may take before it is killed: every script answers in well under a second. */
export const LAB_RUN_TIMEOUT_MS = 90_000;

/** Output kept from one run; an agent printing more than this is cut (and the test sees it). */
export const MAX_RUN_OUTPUT_BYTES = 4 * 1024 * 1024;

export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CCTOP_AGENTS_DIR) return env.CCTOP_AGENTS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cctop-agents');
}

/**
 * The versions the lab runs: the pins (`lab/agents.json`), or, with `CCTOP_LAB_AGENTS=newest` (the
 * drift run, `npm run agents -- --newest`), the newest versions it installed beside them and listed
 * in `newest.json` in the agents' cache; an agent it could not install keeps its pin.
 */
function pinsOf(env: NodeJS.ProcessEnv): Record<LabAgentId, Pin> {
  const pinned: Record<LabAgentId, Pin> = JSON.parse(readFileSync(join(REPO, 'lab', 'agents.json'), 'utf8'));
  if (env.CCTOP_LAB_AGENTS !== 'newest') return pinned;
  const newest: Partial<Record<LabAgentId, Pin>> = JSON.parse(
    readFileSync(join(agentsDir(env), 'newest.json'), 'utf8'),
  );
  return { ...pinned, ...newest };
}

export const PINS: Record<LabAgentId, Pin> = pinsOf(process.env);

/** Where `npm run agents` puts a pinned package's executable, or null when it is not installed. */
function installedBin(pin: Pin): string | null {
  const folder = join(agentsDir(), `${pin.package.replace('/', '+')}@${pin.version}`);
  const bin = join(folder, 'node_modules', '.bin', pin.bin);
  return existsSync(join(folder, '.installed')) && existsSync(bin) ? bin : null;
}

/**
 * The folder holding the Node an agent's pin names (`lab/install.mjs` installs it from the registry's
 * `node-<platform>-<arch>` package), to put first on its PATH; null when it has none or it is missing.
 */
export function agentNodeDir(id: LabAgentId): string | null {
  const version = PINS[id].node;
  if (version === undefined) return null;
  const node = installedBin({ package: `node-${process.platform}-${process.arch}`, version, bin: 'node' });
  return node === null ? null : dirname(node);
}

/** The pinned executable, or null when `npm run agents` has not installed it (or the Node it needs). */
export function agentBin(id: LabAgentId): string | null {
  if (PINS[id].node !== undefined && agentNodeDir(id) === null) return null;
  return installedBin(PINS[id]);
}

/** What one lab run asks of an agent. */
export interface LabPrompt {
  prompt: string;
  /** The session to continue, for a resumed run. */
  resume: string | null;
  /** `allow`: tools run without asking. `ask`: the agent's own default, which asks (or refuses headless). */
  permission: 'allow' | 'ask';
}

export interface Recipe {
  id: LabCliId;
  /** The model the recipe asks for (the server answers any). */
  model: string;
  /** Write the config files the agent needs into its fresh home, pointed at the server. */
  setup(home: string, serverUrl: string): void;
  /** Environment on top of the lab's minimal one. */
  env(home: string, serverUrl: string): Record<string, string>;
  args(p: LabPrompt): string[];
  /** The session id a finished run reports on stdout, when its output format carries one. */
  sessionId(stdout: string): string | null;
}

type Printed = Record<string, unknown>;

/** What an agent printed, as records: one JSON value (an object, or an array of events), else JSON lines. */
function printedRecords(stdout: string): Printed[] {
  const isRecord = (v: unknown): v is Printed => typeof v === 'object' && v !== null && !Array.isArray(v);
  try {
    const whole: unknown = JSON.parse(stdout);
    return (Array.isArray(whole) ? whole : [whole]).filter(isRecord);
  } catch {
    const out: Printed[] = [];
    for (const line of stdout.split('\n')) {
      try {
        const r: unknown = JSON.parse(line);
        if (isRecord(r)) out.push(r);
      } catch {
        // A banner or a warning, not a record.
      }
    }
    return out;
  }
}

/** The first string `field` among the records an agent printed (those `when` picks), or null. */
export function idInOutput(
  stdout: string,
  field: string,
  when: (r: Printed) => boolean = () => true,
): string | null {
  for (const r of printedRecords(stdout)) {
    const v = r[field];
    if (typeof v === 'string' && when(r)) return v;
  }
  return null;
}

export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The lab home: a fresh folder for one agent, with its working directory inside. */
export interface LabHome {
  home: string;
  cwd: string;
}

export function makeHome(root: string): LabHome {
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, '.tmp'), { recursive: true, mode: 0o700 });
  return { home, cwd };
}

/** The environment every agent gets: nothing of the user's, the server as the proxy for everything. */
export function labEnv(home: string, serverUrl: string): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    USER: 'lab',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TERM: 'dumb',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    // Claude Code's shell output and sockets, kept in the run's folder rather than /tmp/claude-<uid>.
    CLAUDE_CODE_TMPDIR: join(home, '.tmp'),
    HTTP_PROXY: serverUrl,
    HTTPS_PROXY: serverUrl,
    http_proxy: serverUrl,
    https_proxy: serverUrl,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

/** Run the agent once, headless, and wait for it (killing its process group past the timeout). */
export function runAgent(
  recipe: Recipe,
  where: LabHome,
  serverUrl: string,
  p: LabPrompt,
  timeoutMs = LAB_RUN_TIMEOUT_MS,
  o: {
    /** More environment on top (cctop's runtime directory, for the hooks it runs). */
    env?: Record<string, string>;
    /**
     * How long what the agent left running may finish before its group is killed: a hook the agent
     * started as it exited (Codex's `notify`) outlives it outside the lab too.
     */
    graceMs?: number;
  } = {},
): Promise<RunResult> {
  const bin = agentBin(recipe.id);
  if (!bin) throw new Error(`${recipe.id} is not installed: run \`npm run agents\``);
  const started = Date.now();
  const child = spawn(bin, recipe.args(p), {
    cwd: where.cwd,
    env: { ...labEnv(where.home, serverUrl), ...recipe.env(where.home, serverUrl), ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let kept = 0;
  const keep = (into: Buffer[]) => (c: Buffer) => {
    if (kept >= MAX_RUN_OUTPUT_BYTES) return;
    kept += c.length;
    into.push(c);
  };
  child.stdout.on('data', keep(out));
  child.stderr.on('data', keep(err));
  const timer = setTimeout(() => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      if (o.graceMs) await new Promise((r) => setTimeout(r, o.graceMs));
      // Anything it left running in its group (a language server, a shell) goes too.
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is empty.
      }
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      });
    });
  });
}

/**
 * How long a lab test's cleanup keeps trying to remove an agent's home: an agent that has ended may
 * leave helpers writing into it for a moment (a full run under load once failed a cleanup with
 * ENOTEMPTY after five quick tries). Twenty-five tries 200 ms apart give it about five seconds.
 */
const LAB_CLEANUP_RETRIES = 25;
const LAB_CLEANUP_RETRY_MS = 200;

/**
 * How long a cleanup waits for the agents it killed to be gone. A TUI agent whose terminal was
 * closed under it (tmux `kill-server`) can take longer than the retries above to finish writing its
 * home (Qwen Code once did, in a full run under load); one killed outright is gone within this.
 */
const LAB_STRAGGLER_MS = 10_000;

/**
 * The processes working in `root` (their current folder is in it): an agent a test's terminal
 * started and left ending. Linux's /proc; elsewhere none are found and the retries alone apply.
 */
function processesIn(root: string): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      // Gone since the listing, or another user's: not one of this test's agents.
      continue;
    }
    if (cwd === root || cwd.startsWith(`${root}/`)) found.push(Number(name));
  }
  return found;
}

/**
 * Remove a lab test's temporary tree (agent homes, runtime folders). Agents still working in it are
 * killed first and waited for, then the removal tries again while the tree is still written.
 */
export function removeLabTree(root: string): void {
  const deadline = Date.now() + LAB_STRAGGLER_MS;
  for (let left = processesIn(root); left.length > 0 && Date.now() < deadline; left = processesIn(root)) {
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended on its own meanwhile.
      }
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  rmSync(root, {
    recursive: true,
    force: true,
    maxRetries: LAB_CLEANUP_RETRIES,
    retryDelay: LAB_CLEANUP_RETRY_MS,
  });
}
