/**
 * A fake ACP agent for drive's tests: one Node script that speaks enough of the protocol to be run
 * (`initialize`, `session/new`, `session/set_mode`, `session/prompt`, `session/cancel`) and then
 * misbehaves as its first argument says, the way a broken or hostile agent could. It records every
 * message it received, with its pid, in a JSON file beside it, so a test can check what drive sent.
 *
 * Scenarios: `well` (a text answer), `ask` (asks permission for a command, runs it only if allowed),
 * `silent` (never answers `initialize`), `flood` (thousands of chunks, then the answer), `crash`
 * (half a line, then exit 1), `unknown` (asks for a file drive never offered), `linger` (ignores the
 * end of its input), `endless` (one line that never ends), `usage` (reports usage and cost), `hang`
 * (never answers the prompt, until cancelled).
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type AcpScenario =
  | 'well'
  | 'ask'
  | 'silent'
  | 'flood'
  | 'crash'
  | 'unknown'
  | 'linger'
  | 'endless'
  | 'usage'
  | 'hang';

/** What the fake saw: its pid and every message drive sent, in order. */
export interface AcpRecord {
  pid: number;
  argv: string[];
  env: Record<string, string>;
  received: Record<string, unknown>[];
  /** Whether its stdin ended. */
  eof: boolean;
}

const SCRIPT = String.raw`
'use strict';
const fs = require('fs');
const scenario = process.argv[2];
const rec = { pid: process.pid, argv: process.argv.slice(2), env: process.env, received: [], eof: false };
const save = () => { fs.writeFileSync(RECORD + '.tmp', JSON.stringify(rec)); fs.renameSync(RECORD + '.tmp', RECORD); };
save();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
const SESSION = 'fake-session-1';
const update = (u) => send({ method: 'session/update', params: { sessionId: SESSION, update: u } });
let prompt = null;
let asked = null;
function onMessage(m) {
  rec.received.push(m); save();
  if (m.method === 'initialize') {
    if (scenario === 'silent') return;
    send({ id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'fake-acp', version: '0.0.1' }, agentCapabilities: { loadSession: true } } });
  } else if (m.method === 'session/new' || m.method === 'session/load') {
    send({ id: m.id, result: { ...(m.method === 'session/new' ? { sessionId: SESSION } : {}), modes: { availableModes: [{ id: 'default', name: 'Default' }, { id: 'yolo', name: 'YOLO' }], currentModeId: 'default' } } });
  } else if (m.method === 'session/set_mode') {
    send({ id: m.id, result: {} });
  } else if (m.method === 'session/prompt') {
    prompt = m.id;
    onPrompt();
  } else if (m.method === 'session/cancel') {
    if (prompt !== null) send({ id: prompt, result: { stopReason: 'cancelled' } });
    prompt = null;
  } else if (m.id !== undefined && m.method === undefined && m.id === asked) {
    onAnswer(m);
  } else if (m.id !== undefined && m.method === undefined && m.id === 'fs-1') {
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'no file, then' } });
    send({ id: prompt, result: { stopReason: 'end_turn' } });
  }
}
const answer = (text) => {
  update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  send({ id: prompt, result: { stopReason: 'end_turn' } });
};
function onPrompt() {
  switch (scenario) {
    case 'well': case 'linger': return answer('pong from the fake');
    case 'ask':
      update({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'touch x', kind: 'execute', status: 'pending', rawInput: { command: 'touch x' } });
      asked = 7;
      return send({ id: 7, method: 'session/request_permission', params: { sessionId: SESSION, toolCall: { toolCallId: 'call-1', title: 'touch x', kind: 'execute', rawInput: { command: 'touch x' } }, options: [{ optionId: 'yes', kind: 'allow_once', name: 'Allow' }, { optionId: 'no', kind: 'reject_once', name: 'Reject' }] } });
    case 'flood': {
      for (let i = 0; i < 5000; i++) update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'chunk ' + i + ' ' } });
      return answer('flood over');
    }
    case 'crash':
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'about to die' } });
      return process.stdout.write('{"jsonrpc":"2.0","id":' + prompt + ',"result":{"stopRea', () => process.exit(1));
    case 'unknown':
      return send({ id: 'fs-1', method: 'fs/read_text_file', params: { sessionId: SESSION, path: '/etc/passwd' } });
    case 'endless': {
      const chunk = 'x'.repeat(64 * 1024);
      const more = () => { while (process.stdout.write(chunk)) {} process.stdout.once('drain', more); };
      return more();
    }
    case 'usage':
      update({ sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.25, currency: 'USD' } });
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'counted' } });
      return send({ id: prompt, result: { stopReason: 'end_turn', usage: { totalTokens: 1500, inputTokens: 1000, outputTokens: 300, thoughtTokens: 100, cachedReadTokens: 200 } } });
    case 'hang': return;
  }
}
function onAnswer(m) {
  const allowed = m.result && m.result.outcome && m.result.outcome.optionId === 'yes';
  if (allowed) update({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', kind: 'execute', content: [{ type: 'content', content: { type: 'text', text: 'touched' } }] });
  answer(allowed ? 'ran it' : 'was not allowed');
}
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    try { onMessage(JSON.parse(line)); } catch (e) { process.stderr.write('fake-acp: ' + e.message + '\n'); }
  }
});
process.stdin.on('end', () => {
  rec.eof = true; save();
  if (scenario !== 'linger' && scenario !== 'silent') process.exit(0);
});
setInterval(() => {}, 1 << 30);
`;

/** Write the fake ACP agent into `dir` as `fake-acp`; returns its path. */
export function writeFakeAcp(dir: string): string {
  const path = join(dir, 'fake-acp');
  writeFileSync(
    path,
    `#!${process.execPath}\n${SCRIPT.replace(/RECORD/g, () => JSON.stringify(recordPath(dir)))}`,
  );
  chmodSync(path, 0o755);
  return path;
}

const recordPath = (dir: string): string => join(dir, 'fake-acp.record.json');

/** What the fake in `dir` saw on its last run. */
export function acpRecord(dir: string): AcpRecord {
  return JSON.parse(readFileSync(recordPath(dir), 'utf8')) as AcpRecord;
}
