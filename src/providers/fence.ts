/**
 * The fence between cctop and a harness's reader: every call the scan, the report and the views
 * make into a provider goes through here, and whatever the provider throws comes out as a problem
 * naming the file or session, never as the end of the run.
 *
 * Why it exists: transcripts are written by agents that read hostile pages, and a reader cannot
 * foresee every shape a field takes (a `cwd` with a 300-character name or a NUL makes the settings
 * lookup throw, a directory the user may not enter makes a stat throw). A throw that escaped one
 * session used to end `--list`, `--json`, `report`, `chat` and `doctor`, and turn every serve
 * answer into a 500. Guarding each field would leave the next one unguarded; guarding the call
 * guards them all. A test holds the index, the report and the views to calling providers only
 * through here.
 *
 * What it does not do: retry, or keep half a read. A file whose reader threw contributes nothing
 * (its facts would be whatever the reader had reached, which is not a count of anything); a
 * conversation whose reader threw is shown as unreadable, with the reason and not the bytes.
 */
import { type CallLog, emptyCallLog } from '../model/calls.js';
// Only the type: the scan loads this module, and a run answering from the index loads no reader.
import type { Conversation } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import { describeFsError, type Problem, type ProblemLog } from '../model/problems.js';
import { sealCalls } from '../model/seal.js';
import {
  type ConversationOptions,
  type Env,
  type ParseResult,
  type Provider,
  type ProviderPlace,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
  type WindowQuery,
} from './types.js';

/** What a fenced call gave: the provider's answer, or the problem its throw became. */
export type Fenced<T> = { kind: 'answered'; value: T } | { kind: 'failed'; problem: Problem };

/** The problem a throw becomes: gone (ENOENT) or unreadable, saying what was being done and why. */
export function problemOf(path: string, doing: string | null, err: unknown): Problem {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const why = describeFsError(err);
  return {
    kind: code === 'ENOENT' ? 'vanished' : 'unreadable',
    path,
    count: null,
    detail: doing === null ? why : `${doing}: ${why}`,
  };
}

function fenced<T>(path: string, doing: string | null, call: () => T): Fenced<T> {
  try {
    return { kind: 'answered', value: call() };
  } catch (err) {
    return { kind: 'failed', problem: problemOf(path, doing, err) };
  }
}

/**
 * Read one file from the start, or on from `previous` as the index kept it: its carry goes through
 * the provider's `readCarry` first, and one that does not read means the file is read from the start.
 */
export function readSource<C>(
  provider: Pick<Provider<ProviderId, C>, 'parse' | 'readCarry'>,
  file: SourceFile,
  previous: ParseResult | null,
): Fenced<ParseResult<C>> {
  return fenced(file.path, null, () => {
    const carry = previous === null ? undefined : provider.readCarry(previous.carry);
    return provider.parse(file, previous === null || carry === undefined ? null : { ...previous, carry });
  });
}

/**
 * A harness's roots and the files under them. A discovery that throws costs that harness's files
 * (each root is named in a problem) and nothing else.
 */
export function discoverSources(
  place: ProviderPlace,
  env: Env,
  problems: ProblemLog,
): { roots: Root[]; files: SourceFile[] } {
  let roots: Root[] = [];
  try {
    roots = place.roots(env);
    return { roots, files: place.discover(roots, problems) };
  } catch (err) {
    const doing = `finding ${place.label} sessions`;
    if (roots.length === 0) problems.add(problemOf(place.label, doing, err));
    for (const r of roots) problems.add(problemOf(r.path, doing, err));
    return { roots, files: [] };
  }
}

/**
 * A session's context window. When the harness's lookup throws (it reads the project's settings),
 * the window is what the harness reported or the catalogue knows, and the problem says why.
 */
export function sessionWindow(place: ProviderPlace, q: WindowQuery, file: string): Fenced<number | null> {
  const w = fenced(file, 'looking up its context window', () => place.contextWindow(q));
  // The session itself was read: a failed lookup in its `cwd` (a name too long for the file system,
  // a directory it may not enter) is a note on it, not a file cctop could not read.
  return w.kind === 'failed' ? { kind: 'failed', problem: { ...w.problem, kind: 'session-note' } } : w;
}

/** The window to show whatever the lookup did: the fallback when it failed. */
export function windowOrFallback(w: Fenced<number | null>, q: WindowQuery): number | null {
  return w.kind === 'answered' ? w.value : reportedOrKnownWindow(q);
}

/** Where the harness keeps its sessions, without looking there; none when saying so throws. */
export function rootsOf(place: ProviderPlace, env: Env): Root[] {
  const r = fenced(place.label, null, () => place.roots(env));
  return r.kind === 'answered' ? r.value : [];
}

/** Where the harness auto-compacts; null (not known) when saying so throws. */
export function compactRatioOf(place: ProviderPlace, env: Env): number | null {
  const r = fenced(place.label, null, () => place.compactRatio(env));
  return r.kind === 'answered' ? r.value : null;
}

/**
 * The conversation of the session whose main transcript is `path`: the provider's reading, or an
 * unreadable one saying why (no reader for the harness, or the reader threw).
 */
export function conversationOf(provider: Provider, path: string, o: ConversationOptions): Conversation {
  if (!provider.conversation)
    return unread(provider.noConversation ?? `cctop has no conversation reader for ${provider.label} yet`);
  const read = provider.conversation.bind(provider);
  const c = fenced(path, null, () => read(path, o));
  return c.kind === 'answered'
    ? c.value
    : unread(`cctop could not read this conversation (${c.problem.detail})`);
}

/** A conversation with no turns and the reason (as `unsupported` in `model/conversation.ts` builds it). */
const unread = (note: string): Conversation => ({ supported: false, turns: [], earlier: 0, note });

/**
 * Every call of the session whose main transcript is `path`: an empty log for a harness that names
 * none, the problem when its reader threw.
 */
export function callsOf(provider: Provider, path: string): Fenced<CallLog> {
  if (!provider.calls) return { kind: 'answered', value: emptyCallLog() };
  const read = provider.calls.bind(provider);
  // Nothing of a transcript leaves a reader unredacted: calls as turns (`model/conversation.ts`).
  return fenced(path, 'reading its calls', () => sealCalls(read(path)));
}
