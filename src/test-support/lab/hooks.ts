/**
 * Hooks in the lab: Claude Code settings whose hooks run one command for every event the pinned CLI
 * knows, and a capture script that writes down what each hook was sent. A test points the hooks at
 * `cctop hook claude <Event>` to check the real thing, or at the capture script to record payloads
 * (how `lab/fixtures/hooks/` was made; its README has the commands and what fired).
 *
 * Not the installer: `cctop hooks install` (`src/hooks/install/`) writes the user's settings, with the
 * events cctop wants. This writes a lab home's settings, with every event, so a recording misses none.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every hook event Claude Code 2.1.328 knows, from the binary's own list. Which fire headless, and in
 * what order, is in `lab/fixtures/hooks/README.md`.
 */
export const CLAUDE_HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
  'DirectoryAdded',
  'MessageDisplay',
] as const;

/**
 * Events left out of a recording by default: `WorktreeCreate` and `WorktreeRemove` replace Claude
 * Code's own worktree handling with the hook (a hook that prints nothing would break `--worktree`).
 */
export const CLAUDE_HOOK_EVENTS_LEFT_OUT = ['WorktreeCreate', 'WorktreeRemove'] as const;

/** Quote one word for the `sh -c` Claude Code runs a hook command in. */
export const shellWord = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Write `<home>/.claude/settings.json` (kept settings merged in) so that each of `events` runs
 * `command(event)`: a shell command line. Returns the settings path.
 */
export function writeClaudeHookSettings(
  home: string,
  command: (event: string) => string,
  events: readonly string[] = CLAUDE_HOOK_EVENTS,
): string {
  const dir = join(home, '.claude');
  const path = join(dir, 'settings.json');
  mkdirSync(dir, { recursive: true });
  const kept = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  const hooks: Record<string, unknown> = {};
  // An empty matcher matches every tool, and is ignored by the events that have none.
  for (const e of events) hooks[e] = [{ matcher: '', hooks: [{ type: 'command', command: command(e) }] }];
  writeFileSync(path, `${JSON.stringify({ ...kept, hooks }, null, 2)}\n`);
  return path;
}

/** The hook command that runs `cctop hook claude <Event>` from a built cctop (`dist/cli.js`). */
export const cctopHookCommand =
  (cli: string) =>
  (event: string): string =>
    [process.execPath, cli, 'hook', 'claude', event].map(shellWord).join(' ');

/** One hook call as the capture script wrote it down. */
export interface CapturedHook {
  /** The event the settings named (the script's first argument). */
  event: string;
  /** Every argument after the script: the event, then whatever the agent appended (Codex's payload). */
  argv: string[];
  at: number;
  /** The hook process's parent: for Claude Code 2.1.328, the `sh -c` it runs each hook in. */
  ppid: number;
  /** Standard input, parsed when it is JSON. */
  payload: unknown;
  /** Standard input as text, when it is not JSON. */
  raw: string | null;
}

const CAPTURE_SCRIPT = `// Written by cctop's lab (src/test-support/lab/hooks.ts): one JSON line per hook call.
import { appendFileSync, readFileSync } from 'node:fs';
const out = process.argv[2];
let stdin = '';
try { stdin = readFileSync(0, 'utf8'); } catch {}
let payload = null;
try { payload = JSON.parse(stdin); } catch {}
const argv = process.argv.slice(3);
appendFileSync(out, JSON.stringify({ event: argv[0] ?? '', argv, at: Date.now(), ppid: process.ppid, payload, raw: payload === null ? stdin : null }) + '\\n');
`;

/**
 * Write the capture script into `dir`; returns the hook command for an event and a reader of what
 * was captured so far. Each call appends one line to `<dir>/captured.jsonl`.
 */
export function captureHooks(dir: string): {
  command: (event: string) => string;
  read: () => CapturedHook[];
} {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'capture.mjs');
  const out = join(dir, 'captured.jsonl');
  writeFileSync(script, CAPTURE_SCRIPT);
  return {
    command: (event) => [process.execPath, script, out, event].map(shellWord).join(' '),
    read: () =>
      existsSync(out)
        ? readFileSync(out, 'utf8')
            .split('\n')
            .filter((l) => l.length > 0)
            .map((l) => JSON.parse(l) as CapturedHook)
        : [],
  };
}

/** A Claude Code session driven over stream-json as cctop's drive runs it, approvals asked on stdout. */
export interface StreamSession {
  /** Every record it printed so far, in order. */
  records: Record<string, unknown>[];
  /** Send a prompt (a user message). */
  prompt(text: string): void;
  /** Allow the tool call a `control_request` asked about. */
  allow(ask: Record<string, unknown>): void;
  /** Close stdin (the session ends) and wait for the exit code. */
  end(): Promise<number | null>;
}

/**
 * Start `claude -p` reading stream-json, with `--permission-prompt-tool stdio` so a call that needs
 * permission asks on stdout (`control_request`) and waits for the answer on stdin; stdin stays open
 * between turns, as a driven session's does. `env` is the whole environment it runs with.
 */
export function streamClaude(
  bin: string,
  model: string,
  cwd: string,
  env: Record<string, string>,
): StreamSession {
  const child: ChildProcessWithoutNullStreams = spawn(
    bin,
    [
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-prompt-tool',
      'stdio',
      '--model',
      model,
    ],
    { cwd, env },
  );
  const records: Record<string, unknown>[] = [];
  let pending = '';
  child.stdout.on('data', (c: Buffer) => {
    pending += c.toString('utf8');
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      try {
        records.push(JSON.parse(pending.slice(0, i)) as Record<string, unknown>);
      } catch {
        // Not a record.
      }
      pending = pending.slice(i + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (record: unknown) => child.stdin.write(`${JSON.stringify(record)}\n`);
  return {
    records,
    prompt: (text) => send({ type: 'user', message: { role: 'user', content: text } }),
    allow: (ask) => {
      const request = ask.request as { input: unknown };
      const response = { behavior: 'allow', updatedInput: request.input };
      send({
        type: 'control_response',
        response: { subtype: 'success', request_id: ask.request_id, response },
      });
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
  };
}
