/**
 * One Codex thread run three times, as codex-cli 0.169.0 wrote it in the conformance lab: `codex exec
 * --json` ran a command (exit 0), `exec resume` ran one that exited 3, and a second `exec resume`
 * only answered. Shared by the tests of the exec stream, the rollout reader and the runner, so each
 * reads the same thread. Lines are trimmed copies (the rollout's `session_meta` keeps only its ids,
 * and `token_count` events drop their `rate_limits`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const THREAD = '01a23375-93be-7602-8370-ca44962e5488';

const OPENING = [
  `{"type":"thread.started","thread_id":"${THREAD}"}`,
  '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}',
  '{"type":"turn.started"}',
];

/** `codex exec --json '[lab:call] run the command'`: a new thread. */
export const FIRST_RUN = [
  ...OPENING,
  `{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'echo lab-call-ok'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
  `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'echo lab-call-ok'","aggregated_output":"lab-call-ok\\n","exit_code":0,"status":"completed"}}`,
  '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"The command printed lab-call-ok."}}',
  '{"type":"turn.completed","usage":{"input_tokens":19857,"cached_input_tokens":9928,"cache_write_input_tokens":0,"output_tokens":32,"reasoning_output_tokens":9}}',
];

/** `codex exec resume <thread> --json '[lab:fail] …'`: a command that exits 3. */
export const SECOND_RUN = [
  ...OPENING,
  `{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'echo lab-fail-out; exit 3'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
  `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'echo lab-fail-out; exit 3'","aggregated_output":"lab-fail-out\\n","exit_code":3,"status":"failed"}}`,
  '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"The command failed with exit code 3."}}',
  '{"type":"turn.completed","usage":{"input_tokens":40088,"cached_input_tokens":20043,"cache_write_input_tokens":0,"output_tokens":72,"reasoning_output_tokens":22}}',
];

/**
 * The second resume. The lab's ledger says what this run's one model call cost: 5125 uncached input,
 * 5125 cached, 23 output of which 8 reasoning. `turn.completed` says the thread's total instead.
 */
export const THIRD_RUN = [
  ...OPENING,
  '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"pong: the lab answers with text only."}}',
  '{"type":"turn.completed","usage":{"input_tokens":50338,"cached_input_tokens":25168,"cache_write_input_tokens":0,"output_tokens":95,"reasoning_output_tokens":30}}',
];

/** The tail of the thread's rollout as the third run found it: the second run's last lines. */
export const ROLLOUT_BEFORE_THIRD_RUN = [
  `{"timestamp":"2026-12-01T21:14:33.386Z","ordinal":0,"type":"session_meta","payload":{"session_id":"${THREAD}","id":"${THREAD}","timestamp":"2026-12-01T21:14:33.291Z","cwd":"/tmp/rec/home-xh9HZs/work","originator":"codex_exec","cli_version":"0.169.0","source":"exec","model_provider":"lab"}}`,
  '{"timestamp":"2026-12-01T21:14:33.689Z","ordinal":17,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":19857,"cached_input_tokens":9928,"cache_write_input_tokens":0,"output_tokens":32,"reasoning_output_tokens":9,"total_tokens":19889},"last_token_usage":{"input_tokens":9978,"cached_input_tokens":4989,"cache_write_input_tokens":0,"output_tokens":17,"reasoning_output_tokens":5,"total_tokens":9995},"last_usage_includes_reasoning":false,"model_context_window":258400}}}',
  `{"timestamp":"2026-12-01T21:14:34.738Z","ordinal":29,"type":"event_msg","payload":{"type":"item_completed","thread_id":"${THREAD}","turn_id":"01a23375-9832-72a3-b1ab-65fcf1dc3b3b","item":{"type":"AgentMessage","id":"msg_lab_responses_4","content":[{"type":"Text","text":"The command failed with exit code 3."}]},"started_at_ms":1796159674737,"completed_at_ms":1796159674738}}`,
  '{"timestamp":"2026-12-01T21:14:34.743Z","ordinal":32,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":40088,"cached_input_tokens":20043,"cache_write_input_tokens":0,"output_tokens":72,"reasoning_output_tokens":22,"total_tokens":40160},"last_token_usage":{"input_tokens":10166,"cached_input_tokens":5083,"cache_write_input_tokens":0,"output_tokens":21,"reasoning_output_tokens":7,"total_tokens":10187},"last_usage_includes_reasoning":false,"model_context_window":258400}}}',
  '{"timestamp":"2026-12-01T21:14:34.747Z","ordinal":33,"type":"event_msg","payload":{"type":"task_complete","root_turn_id":"01a23375-9832-72a3-b1ab-65fcf1dc3b3b","turn_id":"01a23375-9832-72a3-b1ab-65fcf1dc3b3b","last_agent_message":"The command failed with exit code 3.","started_at":1796159674,"completed_at":1796159674,"duration_ms":311,"time_to_first_token_ms":130}}',
];

/** Lay a rollout out under a Codex home where Codex 0.169.0 put it; returns its path. */
export function writeRollout(codexHome: string, lines: readonly string[], day = '2026/12/01'): string {
  const dir = join(codexHome, 'sessions', ...day.split('/'));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-${day.replaceAll('/', '-')}T21-14-33-${THREAD}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
