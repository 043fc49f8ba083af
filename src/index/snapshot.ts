/**
 * One picture of every session now: discovery, reading, and the session document. Views ask this;
 * they never parse a transcript themselves.
 */
import type { Plan, SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import type { Env } from '../providers/types.js';
import { type CatalogueInfo, loadCatalogue } from './catalogue.js';
import { chosenProviders, type Discovery, discoverAll, parseAll } from './scan.js';
import { buildDocument } from './sessions.js';

export interface SnapshotOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string;
  sinceMs: number | null;
  untilMs: number | null;
  nowMs?: number;
}

export interface Snapshot {
  document: SessionDocument;
  discovery: Discovery;
  problemsDropped: number;
  catalogue: CatalogueInfo;
}

export function takeSnapshot(o: SnapshotOptions): Snapshot {
  const catalogue = loadCatalogue(o.env);
  const problems = new ProblemLog();
  const providers = chosenProviders(o.providers);
  const discovery = discoverAll(o.env, providers, problems);
  const files = discovery.files.filter((f) => o.sinceMs === null || f.mtimeMs >= o.sinceMs);
  const parsed = parseAll(files, providers, problems);
  const document = buildDocument(parsed, {
    env: o.env,
    plan: o.plan,
    book: new PriceBook(),
    time: new LocalTime(o.timeZone),
    nowMs: o.nowMs ?? Date.now(),
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    problems,
  });
  return { document, discovery, problemsDropped: problems.dropped, catalogue };
}
