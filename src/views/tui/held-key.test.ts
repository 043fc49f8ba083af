import { describe, expect, it } from 'vitest';
import { APPROVAL_VERSION, type ApprovalRequest, type Verdict } from '../../approvals/types.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { heldQuestion } from './held-key.js';
import { onKey } from './input.js';
import type { Key } from './keys.js';
import { initialView, keyOf } from './view.js';

const SESSION = { provider: 'claude', id: '590ab5e8-9a56', host: undefined } as unknown as SessionDoc;

const REQUEST: ApprovalRequest = {
  v: APPROVAL_VERSION,
  id: 'a'.repeat(32),
  agent: 'claude',
  session: '590ab5e8-9a56',
  cwd: '/w/app',
  tool: 'Bash',
  input: 'rm -rf build',
  kind: 'permission',
  questions: [],
  at: 0,
  expiresAt: 1,
  pid: 1,
};

/**
 * The table with one session selected, whose agent holds `request` (or nothing), and whose hooks say
 * `keyed` waits at a prompt answered by its keys (or nothing).
 */
function table(request: ApprovalRequest | null, keyed: ApprovalRequest | null = null, session = SESSION) {
  const v = initialView(new Set());
  v.doc = { sessions: [session], problems: [] } as unknown as SessionDocument;
  v.selected = keyOf(session);
  const said: string[] = [];
  const sent: Verdict[] = [];
  const pressed: { session: string; verdict: Verdict }[] = [];
  const keys = {
    tableRows: () => [],
    tableStart: () => 2,
    screenRows: () => 30,
    quit: () => {},
    say: (t: string) => said.push(t),
    repaint: () => {},
    signal: () => {},
    answer: null,
    held: {
      say: (t: string) => said.push(t),
      held: (provider: string, id: string) =>
        request !== null && provider === request.agent && id === request.session ? request : null,
      answerHeld: (_r: ApprovalRequest, verdict: Verdict) => sent.push(verdict),
      keyed: (s: SessionDoc) => (keyed !== null && s.id === keyed.session ? keyed : null),
      answerKeyed: (s: SessionDoc, verdict: Verdict) => pressed.push({ session: s.id, verdict }),
    },
  };
  const type = (...ks: Key[]) => {
    for (const k of ks) onKey(v, k, keys);
  };
  return { v, said, sent, pressed, type };
}

const ch = (c: string): Key => ({ kind: 'char', ch: c });

describe('a and d answer a request held for cctop', () => {
  it('a shows the call and sends an allow on y', () => {
    const t = table(REQUEST);
    t.type(ch('a'));
    expect(heldQuestion(t.v)).toBe('Allow Bash: rm -rf build?  y: allow  any other key: cancel');
    t.type(ch('y'));
    expect(t.sent).toEqual([{ kind: 'allow' }]);
    expect(t.v.heldAsk).toBeNull();
  });

  it('d takes a reason typed on the hint line and sends it with Enter', () => {
    const t = table(REQUEST);
    t.type(ch('d'), ch('n'), ch('o'), ch('!'), { kind: 'backspace' });
    expect(heldQuestion(t.v)).toBe(
      'Deny Bash: rm -rf build. Reason (optional): no█  Enter: deny  Esc: cancel',
    );
    t.type({ kind: 'enter' });
    expect(t.sent).toEqual([{ kind: 'deny', reason: 'no' }]);
  });

  it('d then Enter denies without a reason; Esc answers nothing', () => {
    const t = table(REQUEST);
    t.type(ch('d'), { kind: 'enter' }, ch('d'), { kind: 'escape' });
    expect(t.sent).toEqual([{ kind: 'deny', reason: null }]);
    expect(t.said).toEqual(['not answered']);
  });

  it('a on a question says it wants words; a session that holds nothing says how to hold', () => {
    const q = table({ ...REQUEST, kind: 'question', tool: 'AskUserQuestion', questions: ['Which?'] });
    q.type(ch('a'));
    expect(q.said).toEqual([
      'it asks a question that wants words: cctop approve ID --answer TEXT, or d to deny it',
    ]);
    const none = table(null);
    none.type(ch('a'));
    expect(none.said).toEqual([
      'a/d answer a permission request held for cctop (cctop hooks install --approvals) or a driven run’s approval; this session has none',
    ]);
    expect(none.sent).toEqual([]);
  });
});

const CODEX = {
  provider: 'codex',
  id: '01a2529a-f17b-7703-b843-a2136d9d4a3a',
  host: undefined,
} as unknown as SessionDoc;
const CALL: ApprovalRequest = {
  ...REQUEST,
  agent: 'codex',
  session: CODEX.id,
  tool: 'Bash',
  input: 'touch lab-escalated.txt',
};

describe('a and d on a Codex session its hooks say waits (nothing held: its prompt is answered by its keys)', () => {
  it('a shows the command the hook named and presses allow on y', () => {
    const t = table(null, CALL, CODEX);
    t.type(ch('a'));
    expect(heldQuestion(t.v)).toBe('Allow Bash: touch lab-escalated.txt?  y: allow  any other key: cancel');
    t.type(ch('y'));
    expect(t.pressed).toEqual([{ session: CODEX.id, verdict: { kind: 'allow' } }]);
    expect(t.sent).toEqual([]);
  });

  it('d denies by its keys, with the reason typed (the status line then says it was not delivered)', () => {
    const t = table(null, CALL, CODEX);
    t.type(ch('d'), ch('n'), ch('o'), { kind: 'enter' });
    expect(t.pressed).toEqual([{ session: CODEX.id, verdict: { kind: 'deny', reason: 'no' } }]);
  });

  it('a then any other key presses nothing', () => {
    const t = table(null, CALL, CODEX);
    t.type(ch('a'), ch('n'));
    expect([t.pressed, t.said]).toEqual([[], ['not answered']]);
  });

  it('a held request of the session is answered first, as held', () => {
    const t = table({ ...CALL, agent: 'codex' }, CALL, CODEX);
    t.type(ch('a'), ch('y'));
    expect([t.sent, t.pressed]).toEqual([[{ kind: 'allow' }], []]);
  });
});
