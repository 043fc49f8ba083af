/**
 * GitHub Copilot CLI, headless: `copilot -p … --output-format json` (JSON lines).
 *
 * Shapes verified against Copilot CLI 1.0.75 by the reference driver, and the tool records against
 * 1.0.102 in the conformance lab: `assistant.message_delta` streams text, `assistant.message`
 * carries the settled answer, `tool.execution_start` and `tool.execution_complete` bracket a tool,
 * `session.usage_checkpoint` reports spend as it goes, and a flat `result` record closes the run with
 * `sessionId`, usage and the exit code. There is no public capture of this format in the corpus, so
 * the tests use the reference's lines and the lab's.
 *
 * Copilot has no schema option, no fork, and no channel for approvals or mid-run input.
 */
import { count, type JsonObject, num, obj, str } from '../../model/json.js';
import { usableId } from '../bounds.js';
import type { Event } from '../events.js';
import type { Dialect, Terminal } from '../parser.js';
import { type Permission, type Plan, withSystem } from '../request.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN, promptOnStdin } from './spec.js';

/**
 * Every level but `default` allows the tools outright and narrows them with flags of its own;
 * `--no-ask-user` keeps the model from putting a question to a person who is not there.
 */
const UNATTENDED = ['--allow-all-tools', '--no-ask-user'];

const PERMISSION_FLAGS: Record<Permission, string[]> = {
  // `=` is required: without it the next word is taken as the prompt.
  'read-only': [...UNATTENDED, '--deny-tool=shell', '--deny-tool=write'],
  plan: [...UNATTENDED, '--mode', 'plan'],
  // Copilot's own rules decide, with nobody to ask (1.0.102 still runs a read-only command such as
  // `echo` without --allow-all-tools).
  default: ['--no-ask-user'],
  edit: [...UNATTENDED, '--deny-tool=shell'],
  auto: [...UNATTENDED, '--allow-all-paths'],
  bypass: [...UNATTENDED, '--allow-all-paths'],
};

export const copilotDialect: Dialect = {
  recognizes: (type) =>
    type === 'result' ||
    type.startsWith('assistant.') ||
    type.startsWith('tool.') ||
    type.startsWith('session.'),
  modelOf: (r) => str(r.model) ?? str(obj(r.data)?.model),
  read(r, s): Event[] {
    const data = obj(r.data);
    const field = (key: string): string | null => str(data?.[key]);
    const t = s.terminal;
    switch (str(r.type)) {
      case 'assistant.message_delta': {
        const text = field('deltaContent');
        return text ? [{ kind: 'text', text }] : [];
      }
      case 'assistant.message': {
        // Authoritative, but already shown as deltas: it settles the answer without repeating it.
        const content = field('content');
        if (content !== null) t.text = content;
        return [];
      }
      case 'assistant.reasoning': {
        const text = field('content');
        return text ? [{ kind: 'thinking', text }] : [];
      }
      case 'tool.execution_start': {
        const id = field('toolCallId');
        const name = field('toolName') ?? 'tool';
        if (id !== null) s.tools.remember(id, name);
        return [{ kind: 'tool_call', id, name, input: data?.arguments ?? null }];
      }
      case 'tool.execution_complete': {
        const id = field('toolCallId');
        if (id !== null) s.tools.forget(id);
        return [{ kind: 'tool_result', id, ok: toolOk(data), output: toolOutput(data) }];
      }
      case 'session.usage_checkpoint': {
        // Session-scoped: it restarts with each run rather than accruing across runs.
        t.usage.aiCreditsNano = count(data?.totalNanoAiu);
        const premium = count(data?.totalPremiumRequests);
        if (premium !== null) t.usage.premiumRequests = premium;
        return [];
      }
      case 'result':
        settleResult(r, s.terminal);
        s.seen.turns++;
        return [];
      default:
        return [];
    }
  },
};

/**
 * Whether a call worked. `success` is the harness's word, and 1.0.102 gives `true` to a shell command
 * that exited 3 (`"shellExecution":{"exitCode":3},"success":true`): a command that exited non-zero has
 * failed, whatever the harness says.
 */
function toolOk(data: JsonObject | null): boolean | null {
  const exit = num(obj(data?.shellExecution)?.exitCode);
  if (exit !== null && exit !== 0) return false;
  return typeof data?.success === 'boolean' ? data.success : null;
}

/**
 * What the model got back. A refused call has no `result`, only `error.message` ("Permission to run
 * this tool was denied due to the following rules: `shell`"), which is then the output, as it is in
 * cctop's session document and in Claude's own refusals.
 */
function toolOutput(data: JsonObject | null): string {
  const content = str(obj(data?.result)?.content);
  const error = str(obj(data?.error)?.message);
  return (data?.success === false ? (error ?? content) : (content ?? error)) ?? '';
}

/** Copilot's terminal record is flat, not nested under `data`. */
function settleResult(r: JsonObject, t: Terminal): void {
  const id = str(r.sessionId);
  if (id !== null && usableId(id)) t.session = id;
  const usage = obj(r.usage);
  if (usage !== null) {
    t.usage.premiumRequests = count(usage.premiumRequests);
    t.usage.durationMs = count(usage.sessionDurationMs);
    t.usage.apiDurationMs = count(usage.totalApiDurationMs);
  }
  const code = r.exitCode;
  if (typeof code === 'number' && code !== 0) {
    t.stop = { kind: 'error' };
    // Copilot gives no explanation with the code; naming the code beats leaving the failure blank.
    t.errorMessage = `copilot exited with code ${code}`;
  }
}

function invocation(plan: Plan): Invocation {
  const prompt = withSystem(plan);
  const piped = promptOnStdin(prompt);
  // A piped prompt drops -p: Copilot reads stdin when it has no prompt argument.
  const args = piped ? [] : ['-p', prompt];
  args.push(...PERMISSION_FLAGS[plan.permission]);
  if (plan.model !== null) args.push('--model', plan.model);
  if (plan.effort !== null) args.push('--effort', plan.effort);
  const session = plan.session;
  if (session.kind === 'mint') args.push('--session-id', session.id);
  else if (session.kind === 'resume') args.push(`--resume=${session.id}`);
  for (const dir of plan.addDirs) args.push('--add-dir', dir);
  args.push('--output-format', plan.format === 'text' ? 'text' : 'json');
  return { args, stdin: piped ? { kind: 'prompt', text: prompt } : { kind: 'none' }, env: {} };
}

export const copilot: AgentSpec = {
  id: 'copilot',
  bin: 'copilot',
  installHint: 'install GitHub Copilot CLI with `npm install -g @github/copilot`, or pass its path as `bin`',
  loginHint: 'run `copilot` once and log in with /login, or set COPILOT_GITHUB_TOKEN',
  caps: { fork: false, schema: false, interactive: false, mintSession: true, thinkingSwitch: false },
  credentials: {
    names: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST'],
    prefixes: ['COPILOT_'],
  },
  dialect: copilotDialect,
  schemaInFile: false,
  invocation,
  authFailure: (stderr) => NOT_LOGGED_IN.test(stderr),
  // Copilot's usage restarts with each run and it reports no thread total: nothing to take a share of.
  baseline: baselineOf,
  settle: (t) => t,
};
