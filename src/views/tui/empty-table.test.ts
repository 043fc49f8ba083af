import { expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { PLAIN } from '../cli/color.js';
import { initialView, render } from './view.js';

const NOW = Date.parse('2026-12-07T06:00:00Z');

it('the empty live table tells a newcomer about cctop --demo and cctop doctor', () => {
  const doc: SessionDocument = {
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions: [],
    problems: [],
    totals: totalsOf([]),
  };
  const lines = render({ ...initialView(new Set()), doc, loading: null }, PLAIN, 120, 20, NOW).lines;
  expect(lines).toContain(
    '  no sessions yet: cctop --demo shows a sample history; cctop doctor says where cctop looked',
  );
});
