/**
 * The live table's state: what is loaded, what is selected, how the rows are sorted and filtered,
 * which panel is open, and what the panels know of the selected session's transcript.
 *
 * Plain data, changed by the app (`app.ts`, `input.ts`) and read by the view; nothing here draws or
 * reads a file.
 */
import type { BudgetState } from '../../config/index.js';
import type { CallLog } from '../../model/calls.js';
import type { Collision } from '../../model/collision.js';
import type { Conversation } from '../../model/conversation.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { QuotaFigure } from '../../model/quota.js';
import type { SessionReport } from '../../report/types.js';
import type { HandoffTarget } from '../../share/targets.js';
import type { HeldAsk } from './held-key.js';

export const PANELS = ['info', 'tools', 'context', 'cost', 'chat', 'collisions'] as const;
export type Panel = (typeof PANELS)[number];

export const SORTS = ['last', 'cost', 'tokens', 'ctx', 'cpu', 'duration'] as const;
export type Sort = (typeof SORTS)[number];

/** How long a row that rang stays marked. */
export const RANG_MARK_MS = 30_000;

/**
 * What the panels know of the selected session's transcript (`key` says which session), read off
 * the main thread once per change.
 */
export type Detail =
  /** Being read. A session already shown keeps its last detail while it is read again. */
  | { kind: 'loading'; key: string }
  /** The transcript was deleted: only the numbers the index kept remain. */
  | { kind: 'gone'; key: string }
  | { kind: 'ready'; key: string; log: CallLog; report: SessionReport; conversation: Conversation }
  /** The read failed; `error` says why, for the panel to show. */
  | { kind: 'failed'; key: string; error: string }
  /**
   * Another machine's session (`--host`): its transcript is there, so its report (for the Tools and
   * Context panels) and its conversation are each fetched over ssh when a panel first needs them.
   */
  | {
      kind: 'remote';
      key: string;
      host: string;
      report: Fetching<SessionReport>;
      conversation: Fetching<Conversation>;
    };

/** One part of a remote session's detail. */
export type Fetching<T> =
  /** No panel has needed it yet. */
  | { kind: 'unasked' }
  /** On its way over ssh; nothing to show yet. */
  | { kind: 'fetching' }
  /** Fetched; `refreshing` while a newer copy is on its way (the row moved on since). */
  | { kind: 'read'; value: T; refreshing: boolean }
  /** The fetch failed; `error` says why, with the fix. */
  | { kind: 'failed'; error: string };

export interface ViewState {
  /**
   * The home the sessions were read from (`$HOME`; the demo's own copy under `--demo`): a path under
   * it is shown from `~`, so the demo shows no temporary directory and a path reads shorter.
   */
  home: string | null;
  doc: SessionDocument | null;
  selected: string | null;
  top: number;
  follow: boolean;
  sort: Sort;
  reverse: boolean;
  filter: string;
  filtering: boolean;
  panel: Panel;
  panelScroll: number;
  notify: boolean;
  help: boolean;
  status: string | null;
  rang: Map<string, number>;
  rates: Map<string, number>;
  hidden: ReadonlySet<string>;
  detail: Detail | null;
  /** Shown under the header until the first refresh lands, and while a refresh that reads much runs (its progress). */
  loading: string | null;
  /** Said in place of rows when there are no sessions (which filter matched nothing); null: the default. */
  empty: string | null;
  /** Bumped whenever `doc` or `rates` change, so sorted rows and totals are worked out once per change. */
  revision: number;
  /** Where each budget of the config file stands (the header shows them); empty when none is set. */
  budgets: readonly BudgetState[];
  /** The accounts' quota (`cctop quota`'s figures, without the pace); the header names 5h and 7d. */
  quota: readonly QuotaFigure[];
  /** Running sessions writing the same file or repository (`live/collision-watch.ts`); a new list on each change. */
  collisions: readonly Collision[];
  /** An answer to a driven run's approval, shown and waiting for `y` before it is sent. */
  confirm: Confirm | null;
  /** `O` asked which harness to hand a session to (`handoff-key.ts`); `target` is what Enter takes. */
  handoff: { key: string; target: HandoffTarget } | null;
  /** `a`/`d` on a session whose agent holds a request: the answer being made (`held-key.ts`). */
  heldAsk: HeldAsk | null;
  /** `s` is typing a line for a session's terminal, or `x` asks before stopping its turn. */
  terminal: { key: string; act: 'send'; text: string } | { key: string; act: 'stop' } | null;
}

/** An answer the person is asked to confirm: which run, which request, and what they saw. */
export interface Confirm {
  run: string;
  request: string;
  behavior: 'allow' | 'deny';
  tool: string;
  input: string;
}

/** A row's identity: its harness and id, and for another machine's session (`--host`) the machine. */
export const keyOf = (s: Pick<SessionDoc, 'provider' | 'id' | 'host'>): string =>
  s.host === undefined ? `${s.provider}\u0000${s.id}` : `${s.host}\u0000${s.provider}\u0000${s.id}`;

/** The view as it opens: nothing loaded yet, newest first, following, the Info panel. */
export function initialView(hidden: ReadonlySet<string>, home: string | null = null): ViewState {
  return {
    home,
    doc: null,
    selected: null,
    top: 0,
    follow: true,
    sort: 'last',
    reverse: false,
    filter: '',
    filtering: false,
    panel: 'info',
    panelScroll: 0,
    notify: true,
    help: false,
    status: null,
    rang: new Map(),
    rates: new Map(),
    hidden,
    detail: null,
    loading: 'reading transcripts…',
    empty: null,
    revision: 0,
    budgets: [],
    quota: [],
    collisions: [],
    confirm: null,
    handoff: null,
    heldAsk: null,
    terminal: null,
  };
}
