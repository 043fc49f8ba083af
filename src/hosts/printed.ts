/**
 * What another machine's cctop printed, parsed as JSON under the depth bound, or why it is not JSON,
 * in the words every reader of a remote answer uses ("it printed nothing", "its JSON nests too
 * deep"), so a session document, a conversation and a spend report are refused alike.
 *
 * Not here: what the value must hold; each reader checks its own document field by field.
 */
import { readJson } from '../model/json.js';

/** The JSON value in `bytes`, or why there is none. */
export function printedJson(bytes: Buffer): { kind: 'json'; value: unknown } | { kind: 'not'; why: string } {
  const r = readJson(bytes.toString('utf8'));
  if (r.kind === 'read') return { kind: 'json', value: r.value };
  if (r.reason === 'too-deep') return { kind: 'not', why: 'its JSON nests too deep' };
  return { kind: 'not', why: bytes.length === 0 ? 'it printed nothing' : 'it did not print JSON' };
}
