/**
 * The recorded lab runs (`lab/fixtures/<agent>/<case>/`, written by `npm run lab:record`), replayed on
 * any clone: each home the real CLI wrote is read by `cctop --json`, `report` and `chat`, and checked
 * against the ledger the lab server kept when it answered. No agent and no `../shared` is needed, so
 * every reader is tested on real output of the version named in the fixture's `meta.json`.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionDocument } from '../../src/model/document.js';
import type { SessionReport } from '../../src/report/types.js';
import {
  cctopJson,
  cctopRead,
  chatMismatches,
  type Expect,
  entriesOf,
  fixtures,
  mismatches,
  reportMismatches,
} from '../../src/test-support/lab/check.js';

const all = fixtures();
type Session = SessionDocument['sessions'][number];

describe('recorded lab runs', () => {
  it('are in the repository for every agent the lab runs', () => {
    expect(new Set(all.map((f) => f.meta.agent)).size).toBeGreaterThanOrEqual(2);
  });

  for (const f of all) {
    describe(`${f.meta.package}@${f.meta.version}, ${f.name}`, () => {
      const x = (): Expect => ({ ...f.meta.expect, entries: entriesOf(f.ledger, f.meta.scripts) });
      let read: { sessions: Session[]; report: SessionReport; chat: Conversation };
      beforeAll(() => {
        const home = mkdtempSync(join(tmpdir(), 'cctop-fixture-'));
        try {
          cpSync(join(f.dir, 'home'), home, { recursive: true });
          const sessions = cctopJson(home).sessions.filter((s) => s.provider === f.meta.agent);
          const id = sessions[0]?.id ?? 'none';
          read = {
            sessions,
            report: cctopRead<SessionReport>(home, ['report', id]),
            chat: cctopRead<Conversation>(home, ['chat', id]),
          };
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      });

      it('reads back as the server said it: tokens, requests, model, calls, failures, context, title', () => {
        expect(read.sessions).toHaveLength(1);
        expect(mismatches(read.sessions[0]!, x()).join('\n')).toBe('');
      });

      it('reports one context point per request and charges each call the growth it caused', () => {
        expect(reportMismatches(read.report, x()).join('\n')).toBe('');
      });

      it('shows the conversation: the prompts, the answers and the calls', () => {
        expect(chatMismatches(read.chat, x(), f.meta.prompts).join('\n')).toBe('');
      });
    });
  }
});
