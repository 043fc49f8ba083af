/**
 * Two OpenCode sessions in the `storage/` tree of JSON files that OpenCode kept before its database
 * (1.2): `session/<project>/<id>.json`, `message/<session>/<id>.json`, `part/<message>/<id>.json`,
 * shaped as its `MessageV2` messages and parts. The lab records only the database of 1.18.33, so this
 * older layout is written here; the words and ids are ours. Shared by the tests of the scan and of the
 * conversation.
 *
 * `ses_check` ("Run the failing check", /work/api): the prompt; one reply (gpt-4o-mini, 300 in, 40
 * out, written on the message and again on its step-finish part, one request) whose parts are a bash
 * call OpenCode recorded `completed` with `metadata.exit` 2, OpenCode's own note of it, thinking, the
 * step, and a compaction; the reply ended `MessageAbortedError`. Then a second prompt and a plain "Ok".
 *
 * `ses_hello` ("Say hello", /work/web): the prompt and one reply holding a bash `ls` that exited 0 and
 * its words, with no tokens written anywhere.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** When the sessions began: 2025-10-27T03:33:20Z. */
export const STORAGE_T0 = 1_761_536_000_000;

const at = (s: number) => STORAGE_T0 + s * 1000;
const model = { providerID: 'openai', modelID: 'gpt-4o-mini' };

type Json = Record<string, unknown>;

/** Lay the tree out under `storage` (OpenCode's `~/.local/share/opencode/storage`). */
export function writeOpenCodeStorage(storage: string): void {
  const put = (path: string[], value: Json) => {
    const file = join(storage, ...path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(value)}\n`);
  };
  const session = (id: string, title: string, directory: string, s: number) =>
    put(['session', 'proj_test', `${id}.json`], {
      id,
      version: '1.1.0',
      projectID: 'proj_test',
      directory,
      title,
      time: { created: at(s), updated: at(s + 10) },
    });
  const message = (sessionID: string, m: Json) =>
    put(['message', sessionID, `${String(m.id)}.json`], { sessionID, agent: 'build', ...m });
  const part = (sessionID: string, messageID: string, p: Json) =>
    put(['part', messageID, `${String(p.id)}.json`], { sessionID, messageID, ...p });
  const prompt = (sessionID: string, id: string, text: string, s: number) => {
    message(sessionID, { id, role: 'user', time: { created: at(s) }, model });
    part(sessionID, id, { id: `prt_${id}`, type: 'text', text, time: { start: at(s) } });
  };

  session('ses_check', 'Run the failing check', '/work/api', 100);
  prompt('ses_check', 'msg_check_u1', 'run the check', 101);
  const tokens = { input: 300, output: 40, reasoning: 0, cache: { read: 0, write: 0 } };
  message('ses_check', {
    id: 'msg_check_a1',
    role: 'assistant',
    parentID: 'msg_check_u1',
    time: { created: at(102), completed: at(104) },
    ...model,
    mode: 'build',
    path: { cwd: '/work/api', root: '/work/api' },
    tokens,
    error: { name: 'MessageAbortedError', data: { message: 'The operation was aborted.' } },
  });
  const a1 = (p: Json) => part('ses_check', 'msg_check_a1', p);
  a1({
    id: 'prt_a1_1',
    type: 'tool',
    callID: 'call_check_1',
    tool: 'bash',
    state: {
      status: 'completed',
      input: { command: 'npm run check', description: 'Run the check' },
      output: 'check failed: 3 lint errors\n',
      metadata: { exit: 2 },
      time: { start: at(102.5), end: at(103) },
    },
  });
  a1({ id: 'prt_a1_2', type: 'text', text: 'Command failed with exit code 2.', synthetic: true });
  a1({
    id: 'prt_a1_3',
    type: 'reasoning',
    text: 'The lint step fails; looking at why.',
    time: { start: at(103.1) },
  });
  a1({ id: 'prt_a1_4', type: 'step-start' });
  a1({ id: 'prt_a1_5', type: 'step-finish', reason: 'stop', tokens });
  a1({ id: 'prt_a1_6', type: 'compaction', auto: true });
  prompt('ses_check', 'msg_check_u2', 'try again', 105);
  message('ses_check', {
    id: 'msg_check_a2',
    role: 'assistant',
    parentID: 'msg_check_u2',
    time: { created: at(106) },
    ...model,
  });
  part('ses_check', 'msg_check_a2', { id: 'prt_a2_1', type: 'text', text: 'Ok', time: { start: at(106) } });

  session('ses_hello', 'Say hello', '/work/web', 0);
  prompt('ses_hello', 'msg_hello_u1', 'hello', 1);
  message('ses_hello', { id: 'msg_hello_a1', role: 'assistant', time: { created: at(2) }, ...model });
  part('ses_hello', 'msg_hello_a1', {
    id: 'prt_h_1',
    type: 'tool',
    callID: 'call_hello_1',
    tool: 'bash',
    state: {
      status: 'completed',
      input: { command: 'ls' },
      output: 'index.html\nmain.js\n',
      metadata: { exit: 0 },
      time: { start: at(2.5), end: at(3) },
    },
  });
  part('ses_hello', 'msg_hello_a1', {
    id: 'prt_h_2',
    type: 'text',
    text: 'Two files.',
    time: { start: at(3.1) },
  });
}
