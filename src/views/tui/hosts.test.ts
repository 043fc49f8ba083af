/**
 * Other machines' rows in the live table (`--host`): a HOST column only while some row is remote, a
 * silent host's rows drawn dim with a line saying since when and why, and keys that act refusing a
 * remote row.
 */
import { describe, expect, it } from 'vitest';
import { remoteSession } from '../../hosts/remote-doc.js';
import type { HostStatus, SessionDoc, SessionDocument } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { PLAIN, paint } from '../cli/color.js';
import { type KeyContext, onKey } from './input.js';
import { initialView, keyOf, render, type ViewState } from './view.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const COLOR = paint(true, {});

const session = (id: string, minutesAgo: number, host?: string): SessionDoc => {
  const s = remoteSession({
    provider: 'claude',
    id,
    state: 'idle',
    project: `/w/${id}`,
    title: `task ${id}`,
    lastActiveAt: new Date(NOW - minutesAgo * 60_000).toISOString(),
  })!;
  return host === undefined ? s : { ...s, host };
};

function view(sessions: SessionDoc[], hosts?: HostStatus[]): ViewState {
  const doc: SessionDocument = {
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions,
    problems: [],
    totals: totalsOf(sessions),
    ...(hosts ? { hosts } : {}),
  };
  return { ...initialView(new Set()), doc, loading: null };
}

const header = (lines: string[]) => lines.find((l) => l.includes('PROJECT · TITLE'))!;

describe('other machines in the live table', () => {
  it('shows a HOST column only while some row is another machine’s', () => {
    expect(header(render(view([session('a', 1)]), PLAIN, 160, 30, NOW).lines)).not.toContain('HOST');
    const v = view(
      [session('a', 1), session('b', 2, 'devbox')],
      [{ host: 'devbox', ok: true, sessions: 1, error: null, answeredAt: new Date(NOW).toISOString() }],
    );
    const lines = render(v, PLAIN, 160, 30, NOW).lines;
    expect(header(lines)).toMatch(/^\s+HOST\s+LAST/);
    expect(lines.find((l) => l.includes('task b'))).toMatch(/^\S devbox\s/);
  });

  it('draws a silent host’s last rows dim, and says since when and why it is silent', () => {
    const v = view(
      [session('a', 1), session('b', 2, 'devbox')],
      [
        {
          host: 'devbox',
          ok: false,
          sessions: 1,
          error: 'devbox refused the connection: sshd is not running there',
          answeredAt: new Date(NOW - 3 * 60_000).toISOString(),
        },
      ],
    );
    v.selected = keyOf(v.doc!.sessions[0]!);
    const lines = render(v, COLOR, 160, 30, NOW).lines;
    expect(lines.find((l) => l.includes('task b'))).toMatch(/^\u001b\[2m/);
    expect(lines).toContainEqual(
      COLOR.amber('  devbox: last answer 3m ago: devbox refused the connection: sshd is not running there'),
    );
  });

  it('says a host not answered yet is connecting', () => {
    const v = view(
      [session('a', 1)],
      [{ host: 'devbox', ok: false, sessions: 0, error: null, answeredAt: null }],
    );
    expect(render(v, PLAIN, 160, 30, NOW).lines).toContain('  devbox: connecting…');
  });

  it('tells a local and a remote session with the same id apart', () => {
    expect(keyOf(session('a', 1))).not.toBe(keyOf(session('a', 1, 'devbox')));
  });

  it('refuses to copy a remote row’s resume command or hand it off, saying where it runs', () => {
    const v = view([session('b', 2, 'devbox')], []);
    v.selected = keyOf(v.doc!.sessions[0]!);
    const said: string[] = [];
    const signals: string[] = [];
    const c: KeyContext = {
      tableRows: () => [],
      tableStart: () => 2,
      screenRows: () => 30,
      quit: () => {},
      say: (t) => said.push(t),
      repaint: () => {},
      signal: (s) => signals.push(s),
      answer: null,
    };
    onKey(v, { kind: 'char', ch: 'y' }, c);
    onKey(v, { kind: 'char', ch: 'O' }, c);
    expect(said).toEqual([
      'this session runs on devbox: resume or hand it off there (ssh devbox)',
      'this session runs on devbox: resume or hand it off there (ssh devbox)',
    ]);
    expect(signals).toEqual([]);
    expect(v.handoff).toBeNull();
  });
});
