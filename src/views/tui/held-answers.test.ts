import { describe, expect, it } from 'vitest';
import type { KeyedOutcome } from '../../act/keyed-answer.js';
import { APPROVAL_VERSION, type ApprovalRequest } from '../../approvals/types.js';
import type { SessionDoc } from '../../model/document.js';
import { keyedWords } from './held-answers.js';

const REQUEST: ApprovalRequest = {
  v: APPROVAL_VERSION,
  id: 'a'.repeat(32),
  agent: 'codex',
  session: '01a2529a-f17b',
  cwd: '/w',
  tool: 'Bash',
  input: 'touch lab-escalated.txt',
  kind: 'permission',
  questions: [],
  at: 0,
  expiresAt: 0,
  pid: 1,
};

const pressed = (o: Partial<Extract<KeyedOutcome, { kind: 'pressed' }>>): KeyedOutcome => ({
  kind: 'pressed',
  request: REQUEST,
  session: { id: REQUEST.session } as unknown as SessionDoc,
  verdict: 'allow',
  key: 'y',
  label: 'Yes, proceed',
  where: 'tmux pane %1 (pid 2)',
  closed: true,
  endsTurn: false,
  reasonDropped: false,
  ...o,
});

describe('the status line after a and d on a Codex prompt answered by its keys', () => {
  it('says what the answer did, a reason not delivered included, before the command it answered', () => {
    expect(keyedWords(pressed({}), 'Codex')).toBe('allowed: touch lab-escalated.txt');
    expect(
      keyedWords(pressed({ verdict: 'deny', key: 'Escape', endsTurn: true, reasonDropped: true }), 'Codex'),
    ).toBe(
      "denied, ending Codex's turn; the reason was not delivered (Codex's prompt takes no words): touch lab-escalated.txt",
    );
    expect(keyedWords(pressed({ closed: false }), 'Codex')).toBe(
      'pressed y, but its prompt was still up: touch lab-escalated.txt',
    );
  });

  it('says why nothing was pressed', () => {
    expect(
      keyedWords(
        {
          kind: 'refused',
          request: REQUEST,
          words: 'no approval prompt is on its screen; answer it in its own terminal',
        },
        'Codex',
      ),
    ).toBe('not answered: no approval prompt is on its screen; answer it in its own terminal');
    expect(
      keyedWords({ kind: 'not-waiting', session: REQUEST.session, said: 'PostToolUse (working)' }, 'Codex'),
    ).toBe("not answered: no call waits any more (its hooks' newest word: PostToolUse (working))");
  });
});
