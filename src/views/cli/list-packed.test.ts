/**
 * A warm `cctop --list` lays its table out from the packed plan the warm document keeps; the full
 * route lays the same plan out with `layoutList`. Side by side, at every width and with colour on and
 * off, the two must be the same bytes, for the rows a real history holds and for hostile ones.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderId } from '../../model/facts.js';
import type { SessionState } from '../../model/state.js';
import { paint } from './color.js';
import { type ListFacts, planRows, rowOfFacts } from './list.js';
import type { ListPlan } from './list-layout.js';
import { layoutList } from './list-layout.js';
import { layoutPacked, packList, unpackList } from './list-packed.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const HOUR = 3_600_000;

let n = 0;
const facts = (provider: ProviderId, title: string | null, over: Partial<ListFacts> = {}): ListFacts => {
  n++;
  return {
    provider,
    id: `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
    project: `/home/dev/src/project-${n}`,
    title,
    lastActiveAt: new Date(NOW - n * 7 * HOUR).toISOString(),
    startedAt: new Date(NOW - n * 7 * HOUR - 40 * 60_000).toISOString(),
    model: 'claude-sonnet-4-5-20250929',
    usd: n * 1.37,
    included: false,
    tokens: n * 12_345,
    unpriced: false,
    context: { used: 40_000, compactAt: 160_000 },
    ...over,
  };
};

/** Titles as people and agents write them, and as hostile files do. */
const TITLES: (string | null)[] = [
  'say lol',
  'please move the + button to its own button to the right of the search in @apps/app/src/client/components/AppInnerSidebar.tsx',
  'Let’s explore scrolling — “smart quotes”, an ellipsis… and more text after it to be cut somewhere in the middle',
  'trailing blanks   ',
  'trailing no-break spaces\u00a0\u00a0',
  'café crème brûlée ½ · naïve résumé with Latin letters past ASCII all the way along the row',
  '漢字のタイトルはセルを二つ取る、だから遅い道で測る',
  'an emoji 👩‍💻 then text',
  'an escape \u001b]52;c;aGVsbG8=\u0007 in the title and a bidi \u202e override',
  'x'.repeat(300),
  '',
  null,
];

function plan(): { plan: ListPlan; live: number[] } {
  n = 0;
  const rows = [
    ...TITLES.map((t) => facts('claude', t)),
    ...TITLES.map((t) => facts('codex', t, { model: 'gpt-5-codex' })),
    facts('claude', 'no activity known', { lastActiveAt: null, usd: null, tokens: null }),
    facts('claude', 'an activity that does not parse', { lastActiveAt: 'yesterday' }),
  ].map((f, i) =>
    rowOfFacts(f, {
      state: (['idle', 'working', 'waiting', 'error'] as const)[i % 4]!,
      stateSource: i === 3 ? 'hook' : i === 5 ? 'driven' : 'inferred',
    }),
  );
  const p = planRows(rows, 'retail');
  // Every third row's state is worked out when it is printed (its live entry), the rest kept.
  const live = p.groups.flatMap((g) => g.rows).map((_, i) => (i % 3 === 0 ? i : -1));
  return { plan: p, live };
}

/** The state a row with a live entry reads now: another than the one kept, so a kept one would show. */
const NOW_STATE: SessionState = 'waiting';

describe('a warm --list from the packed plan', () => {
  it('prints the bytes the full route lays out, at every width, colour on and off, ages read now', () => {
    const { plan: p, live } = plan();
    const packed = unpackList(packList(p, live, null));
    expect(packed).not.toBeNull();
    // The full route's plan with the live rows' states as they read now.
    const now: ListPlan = {
      ...p,
      groups: p.groups.map((g) => ({ ...g, rows: g.rows.map((r) => ({ ...r })) })),
    };
    now.groups
      .flatMap((g) => g.rows)
      .forEach((r, i) => {
        if (live[i]! >= 0) r.state = NOW_STATE;
      });
    for (const colour of [false, true]) {
      const pt = paint(colour, {});
      for (let columns = 20; columns <= 320; columns++) {
        for (const at of [NOW, NOW + 30 * 24 * HOUR]) {
          const full = `${layoutList(now, columns, pt, at).join('\n')}\n`;
          const warm = layoutPacked(packed!, columns, pt, at, () => NOW_STATE).toString();
          expect(warm, `${columns} columns, colour ${colour}`).toBe(full);
        }
      }
    }
  });

  it('keeps the rows whose cells are not one each whole (wide scripts, emoji); copies the rest, marks and all', () => {
    const { plan: p, live } = plan();
    const packed = unpackList(packList(p, live, null))!;
    const kept = [...packed.slow.values()].map((r) => r.label);
    expect(kept.some((l) => l.includes('漢字'))).toBe(true);
    expect(kept.some((l) => l.includes('👩'))).toBe(true);
    expect(kept.some((l) => l.includes('say lol') || l.includes('café'))).toBe(false);
    // The escape sequence was scrubbed before the plan held it: copied, it is one mark and no escape.
    const table = layoutPacked(packed, 200, paint(true, {}), NOW, () => NOW_STATE).toString();
    expect(table).toContain('an escape \ufffd in the title and a bidi \ufffd override');
    expect(table).not.toMatch(/\u001b\]|\u0007|\u202e/);
  });

  it('says until when its plan reads the same, and declines another layout', () => {
    const { plan: p, live } = plan();
    expect(unpackList(packList(p, live, NOW + HOUR))?.meta.until).toBe(NOW + HOUR);
    expect(unpackList(Buffer.from('{"plan":{}}'))).toBeNull();
    expect(() => packList(p, live.slice(1), null)).toThrow();
  });
});
