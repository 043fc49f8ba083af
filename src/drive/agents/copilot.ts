/**
 * GitHub Copilot CLI, headless: `copilot -p … --output-format json` (JSON lines).
 *
 * Shapes verified against Copilot CLI 1.0.75 by the reference driver: `assistant.message_delta`
 * streams text, `assistant.message` carries the settled answer, `tool.execution_start` and
 * `tool.execution_complete` bracket a tool, `session.usage_checkpoint` reports spend as it goes,
 * and a flat `result` record closes the run with `sessionId`, usage and the exit code. There is no
 * public capture of this format in the corpus, so the tests here use the reference's lines.
 *
 * Copilot has no schema option, no fork, and no channel for approvals or mid-run input.
 */
import { count, type JsonObject, obj, str } from '../../model/json.js';
import { usableId } from '../bounds.js';
import type { Event } from '../events.js';
import type { Dialect, Terminal } from '../parser.js';
import { type Permission, type Plan, withSystem } from '../request.js';
import { type AgentSpec, type Invocation, NOT_LOGGED_IN, promptOnStdin } from './spec.js';

const PERMISSION_FLAGS: Record<Permission, string[]> = {
  // `=` is required: without it the next word is taken as the prompt.
  'read-only': ['--deny-tool=shell', '--deny-tool=write'],
  plan: ['--mode', 'plan'],
  edit: ['--deny-tool=shell'],
  auto: ['--allow-all-paths'],
  bypass: ['--allow-all-paths'],
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
        const success = data?.success;
        return [
          {
            kind: 'tool_result',
            id,
            ok: typeof success === 'boolean' ? success : null,
            output: str(obj(data?.result)?.content) ?? '',
          },
        ];
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
  args.push('--allow-all-tools', '--no-ask-user', ...PERMISSION_FLAGS[plan.permission]);
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
  settle: (t) => t,
};
