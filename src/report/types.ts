/**
 * One session in depth: what a person reviewing it wants, in one document. `cctop report --json`
 * prints it; the web page's session view draws it.
 */

import type { Breakdown } from '../model/calls.js';
import type { ModelCost, SessionDoc } from '../model/document.js';
import type { Problem } from '../model/problems.js';
import type { TokenCounts } from '../model/usage.js';

export const REPORT_VERSION = 1;

/** Points in the context series: one per request, thinned past this so a chart stays a chart. */
export const MAX_SERIES_POINTS = 2000;

export interface SessionReport {
  version: number;
  session: SessionDoc;
  cost: {
    byModel: ModelCost[];
    /** Every local day the session spent on, oldest first. */
    byDay: { day: string; usd: number | null; tokens: number }[];
    /** Every clock hour it spent in, oldest first. */
    byHour: { hour: string; usd: number | null; tokens: number }[];
  };
  context: {
    used: number | null;
    window: number | null;
    compactAt: number | null;
    /** When each compaction happened (null when the record carried no time). */
    compactions: (string | null)[];
    /** The prompt size of every main-thread request, in order, thinned to `MAX_SERIES_POINTS`. */
    series: { at: string | null; prompt: number }[];
    /** What fills the window now (Claude): measured window and startup, estimated parts, the rest. */
    breakdown: Breakdown | null;
  };
  tools: {
    calls: number;
    failed: number | null;
    byTool: { name: string; calls: number; failed: number }[];
    /** Failures grouped by tool and identical argument: an agent retrying one failing command shows as one row. */
    failures: {
      tool: string;
      detail: string;
      argument: string;
      count: number;
      lastAt: string | null;
      samples: string[];
    }[];
    slowest: { tool: string; detail: string; ms: number; at: string | null; origin: string }[];
    /** Calls after which the context grew most (`shared` when parallel calls split one growth). */
    heaviest: { tool: string; detail: string; growth: number; shared: boolean; at: string | null }[];
    /** Calls older than the read kept (the call log is bounded). */
    dropped: number;
  };
  files: { path: string; reads: number; writes: number; added: number; removed: number }[];
  subagents: {
    agent: string;
    type: string | null;
    title: string | null;
    models: string[];
    requests: number;
    tokens: TokenCounts;
    usd: number | null;
    calls: number;
  }[];
  /** What could not be read for this report (its calls, when the transcript's reader failed), and why. */
  problems: Problem[];
}
