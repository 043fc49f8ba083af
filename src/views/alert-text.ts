/**
 * What an alert says, in the same words in the terminal and on the page: a short title and one
 * sentence. Plain text holding transcript words (a title, a tool's input): the terminal makes it safe
 * where it prints it (`safeLine`); the page hands it to the browser's notifications, which show text.
 *
 * Not here: which alerts fire (`live/alerts.ts`) or how each view rings.
 */
import type { Period } from '../config/index.js';
import type { Alert } from '../live/alerts.js';
import type { SessionDoc } from '../model/document.js';
import { SOURCE_LABEL } from '../model/quota.js';
import { duration, percent, usd } from './format.js';

/** A session's name in an alert is cut to this many characters: the sentence after it matters more. */
const LABEL_CHARS = 60;

const THIS: Record<Period, string> = { day: 'today', week: 'this week', month: 'this month' };

export interface AlertText {
  title: string;
  body: string;
}

/** The session as an alert names it: its title, else its id. */
function label(s: SessionDoc): string {
  const name = (s.title ?? s.id).replace(/\s+/g, ' ').trim();
  const chars = Array.from(name);
  return chars.length <= LABEL_CHARS ? name : `${chars.slice(0, LABEL_CHARS - 1).join('')}…`;
}

const minutes = (n: number): string => (n === 1 ? '1 minute' : `${n} minutes`);

export function alertText(a: Alert): AlertText {
  switch (a.kind) {
    case 'budget': {
      const { budget, spentUsd } = a.state;
      const spent = `${usd(spentUsd)} of ${usd(budget.usd)} (${percent(spentUsd, budget.usd)}) ${THIS[budget.period]}`;
      return a.level === 'over'
        ? { title: `Over budget: ${budget.name}`, body: `${spent}` }
        : { title: `Near budget: ${budget.name}`, body: `${spent}` };
    }
    case 'stall':
      return {
        title: `Stalled: ${label(a.session)}`,
        body: `working, but nothing written for ${minutes(a.quietMinutes)}`,
      };
    case 'burn':
      return {
        title: `Spending fast: ${label(a.session)}`,
        body: `${usd(a.usdPerHour)} an hour, past the limit of ${usd(a.limitUsdPerHour)}`,
      };
    case 'error-loop':
      return {
        title: `Error loop: ${label(a.session)}`,
        body: `${a.tool} failed ${a.count} times in a row${a.input ? `: ${a.input}` : ''}`,
      };
    case 'secret': {
      const kinds = [...new Set(a.found.map((f) => f.kind))].join(', ');
      const n = a.found.length;
      return {
        title: `${n === 1 ? 'A secret' : `${n} secrets`} in: ${label(a.session)}`,
        body: `${kinds} written into the transcript; cctop secrets says where, so it can be rotated`,
      };
    }
    case 'quota': {
      const f = a.figure;
      const name = `${f.harness} ${f.window}`;
      const resets = f.resetsAt === null ? '' : `, resets in ${duration(Date.parse(f.resetsAt) - a.nowMs)}`;
      const used = `${Math.round(f.usedPercent ?? 0)}% used (${SOURCE_LABEL[f.source]})${resets}`;
      return a.crossed.why === 'threshold'
        ? { title: `Quota past ${a.crossed.percent}%: ${name}`, body: used }
        : {
            title: `Quota runs out before it resets: ${name}`,
            body: `${used}; at today's burn it runs out in ${duration(Date.parse(a.crossed.at) - a.nowMs)} (${SOURCE_LABEL.estimate})`,
          };
    }
  }
}

/** The alert on one line (the live table's status line and its desktop notice). */
export function alertLine(a: Alert): string {
  const t = alertText(a);
  return `${t.title}: ${t.body}`;
}
