/**
 * Reading the selected session's transcript for the panels: its calls and its conversation, off
 * the main thread (`DeepReader`), once per selection and once per refresh of the sessions.
 *
 * Another machine's session (`--host`) is `remote-detail.ts`'s: fetched over ssh as a panel needs it.
 *
 * It only fills `ViewState.detail`; what the panels make of each state is `panels.ts`'s business.
 * An answer that arrives after the selection moved on, or after a newer refresh, is dropped.
 */
import type { DeepReader } from '../../live/deep.js';
import type { LiveSessions } from '../../live/engine.js';
import type { SessionDoc } from '../../model/document.js';
import type { RemoteDetails } from './remote-detail.js';
import { keyOf, type ViewState } from './state.js';

/** The newest window of the main conversation (no `before` turn, no subagent's own). */
const latest = () => ({ before: null, agent: null });

export class DetailReader {
  /** The session and the refresh the last read was asked for. */
  private asked: { key: string; version: number } | null = null;

  constructor(
    private readonly live: LiveSessions,
    private readonly deep: DeepReader,
    /** Fetches other machines' sessions over ssh; null: their panels say what stays there. */
    private readonly remote: RemoteDetails | null = null,
  ) {}

  /** Read the selected session's detail unless it is read already; `landed` redraws once it is. */
  load(v: ViewState, landed: () => void): void {
    const s = v.doc?.sessions.find((x) => keyOf(x) === v.selected);
    if (!s || v.help) return;
    if (s.host !== undefined) {
      this.asked = null;
      this.loadRemote(v, s, s.host, landed);
      return;
    }
    this.remote?.stop();
    const key = keyOf(s);
    const before = this.asked;
    if (before && before.key === key && before.version === this.live.version) return;
    const asked = { key, version: this.live.version };
    this.asked = asked;
    // The same session, refreshed, keeps showing what it showed until the new read lands.
    if (before?.key !== key) v.detail = { kind: 'loading', key };
    if (s.deleted) {
      v.detail = { kind: 'gone', key };
      return;
    }
    void Promise.all([
      this.deep.calls(s.provider, s.file),
      this.deep.conversation(s.provider, s.file, latest()),
    ])
      .then(([log, conversation]) => {
        if (this.asked !== asked) return;
        const report = this.live.report(s, log);
        v.detail = {
          kind: 'ready',
          key,
          log,
          report,
          conversation: conversation ?? this.live.conversation(s, latest()),
        };
        landed();
      })
      .catch((err: Error) => {
        if (this.asked !== asked) return;
        v.detail = { kind: 'failed', key, error: `could not read the transcript: ${err.message}` };
        landed();
      });
  }

  /** Another machine's session: fetched over ssh as its panels need it, or said to stay there. */
  private loadRemote(v: ViewState, s: SessionDoc, host: string, landed: () => void): void {
    if (this.remote !== null) {
      this.remote.load(v, s, host, landed);
      return;
    }
    const key = keyOf(s);
    // Its transcript is on that machine; the row's own numbers are all this table has of it.
    if (v.detail?.key !== key)
      v.detail = {
        kind: 'failed',
        key,
        error: `this session runs on ${host}: its conversation and calls stay there`,
      };
  }

  /** Stop what is being fetched from other machines (the table closes). */
  close(): void {
    this.remote?.stop();
  }
}
