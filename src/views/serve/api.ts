/**
 * The shapes of what the JSON API answers, beside the session document (`model/document.ts`), the
 * report (`report/types.ts`) and the update frames (`delta.ts`). The routes build their answers as
 * these types and the page (`web/api.js`, `web/live.js`) reads them as these types, so a field renamed on one side
 * fails the type check on the other.
 *
 * Types only: nothing here runs.
 */
import type { Conversation } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import type { ProviderId } from '../../model/facts.js';
import type { HandoffTarget } from '../../share/targets.js';
import type { Level } from './auth.js';

/** `/api/info`. */
export interface InfoAnswer {
  version: string;
  level: Level;
  delayMs: number;
  /** Whether this server asks for a token. */
  tokens: boolean;
}

/** A session an ambiguous id prefix matched. */
export type Candidate = Pick<SessionDoc, 'id' | 'provider' | 'project' | 'title' | 'lastActiveAt'>;

/** Every refusal; a 409 for an ambiguous prefix lists what it matched. */
export interface ErrorAnswer {
  error: string;
  candidates?: Candidate[];
}

/** `/api/chat/:id`: the window of turns asked for, and the stamp to send back as `since=`. */
export interface ChatWindow extends Conversation {
  /** The session's full id (the URL may have named a prefix). */
  session: string;
  provider: ProviderId;
  agent: string | null;
  stamp: string;
  /** The machine the session runs on (`--host`), for another machine's session; absent for this one's. */
  host?: string;
}

/** `/api/chat/:id?since=<stamp>` when no file of the session moved since `stamp`. */
export interface ChatUnchanged {
  unchanged: true;
  stamp: string;
}

export type ChatAnswer = ChatWindow | ChatUnchanged;

/** `/api/handoff/:id?to=HARNESS`: the line that hands the session over, to show and copy. */
export interface HandoffAnswer {
  /** The session's full id. */
  session: string;
  /** The harness the line starts (the one asked for, else another than the session's own). */
  to: HandoffTarget;
  /** Every harness it could go to, for the page's choice. */
  targets: readonly HandoffTarget[];
  /** `cctop handoff ID --to HARNESS --run`; null for an id that reads as an option. */
  command: string | null;
}
