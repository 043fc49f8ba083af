/**
 * Parse one file with a provider, as the scan does, for tests that look at a single file's facts.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { docOfHeld, heldOfRecord, shownOf } from '../index/held.js';
import { buildRecords, type ParsedFile } from '../index/sessions.js';
import { DOCUMENT_VERSION, type Plan, type SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { totalsOf } from '../model/totals.js';
import { providerById } from '../providers/index.js';
import type { ParseResult, SourceFile } from '../providers/types.js';

export function sourceOf(
  provider: ProviderId,
  path: string,
  role: SourceFile['role'] = 'main',
  sessionHint?: string,
): SourceFile {
  const st = statSync(path);
  return {
    provider,
    path,
    root: '/nonexistent-root',
    sessionHint: sessionHint ?? basename(path, '.jsonl'),
    role,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
  };
}

export function parseFile(
  provider: ProviderId,
  path: string,
  previous: ParseResult | null = null,
): ParseResult {
  return providerById(provider).parse(sourceOf(provider, path), previous);
}

export function parsed(
  provider: ProviderId,
  path: string,
  role: SourceFile['role'] = 'main',
  sessionHint?: string,
): ParsedFile {
  const file = sourceOf(provider, path, role, sessionHint);
  return { file, result: providerById(provider).parse(file, null) };
}

/** The session document for some parsed files, as `cctop --json` would build it. */
export function documentOf(
  files: ParsedFile[],
  o: { plan?: Plan; nowMs?: number; env?: Record<string, string>; sinceMs?: number | null } = {},
): SessionDocument {
  const time = new LocalTime('UTC');
  const nowMs = o.nowMs ?? Date.now();
  const problems = new ProblemLog();
  const records = buildRecords(files, {
    env: o.env ?? {},
    plan: o.plan ?? 'retail',
    book: new PriceBook(),
    time,
    nowMs,
    sinceMs: o.sinceMs ?? null,
    untilMs: null,
    problems,
  });
  const sessions = records.map((r) => {
    const h = heldOfRecord(r);
    return docOfHeld(h, shownOf(h, nowMs), { time, nowMs });
  });
  return {
    version: DOCUMENT_VERSION,
    generatedAt: new Date(nowMs).toISOString(),
    plan: o.plan ?? 'retail',
    timeZone: time.timeZone,
    sessions,
    problems: problems.list,
    totals: totalsOf(sessions),
  };
}
