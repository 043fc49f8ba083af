/**
 * The lab's acting runs kept as fixtures (`lab/fixtures/act/<agent>/<case>/`): the session files a
 * real agent's TUI wrote while cctop typed into it (`cctop send`) or answered its approvals (`cctop
 * approve`), with the stand-in server's ledger and what cctop did. `act-fixtures.test.ts` reads them
 * back on any clone, without the agents: the conversation shows each typed prompt as the person's
 * words, and an approval's outcome.
 *
 * They sit apart from the conformance fixtures (`lab/fixtures/<agent>/`) because a driven session
 * holds what the conformance replay does not expect: a turn interrupted while the model held it.
 * Not here: running the agents (`act-tui.ts`, `approvals.test.ts`).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabAgentId } from '../../src/test-support/lab/agents.js';
import { FIXTURES } from '../../src/test-support/lab/check.js';
import type { LedgerEntry } from '../../src/test-support/lab/server.js';

export const ACT_FIXTURES = join(FIXTURES, 'act');

export interface ActMeta {
  agent: LabAgentId;
  package: string;
  version: string;
  /** `pane` (a tmux pane as a person starts it), `run` (under `cctop run`), or an approval's case. */
  where: string;
  /** Every line `cctop send` typed, in order. */
  typed: string[];
  /** An approval answered by cctop: the verdict, and what the model must have been told. */
  approval?: { verdict: 'allow' | 'deny'; reason: string | null; outcome: string };
  recordedAt?: string;
}

/** Keep what the agent wrote under `keep` (paths relative to its home) as `act/<agent>/<where>`. */
export function recordActFixture(
  meta: ActMeta,
  from: { home: string; cwd: string; keep: readonly string[] },
  ledger: readonly LedgerEntry[],
): void {
  const dir = join(ACT_FIXTURES, meta.agent, meta.where);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  for (const rel of from.keep) {
    const source = join(from.home, rel);
    if (existsSync(source)) cpSync(source, join(dir, 'home', rel), { recursive: true });
  }
  const full: ActMeta = { ...meta, recordedAt: new Date().toISOString() };
  writeFileSync(join(dir, 'meta.json'), `${JSON.stringify(full, null, 2)}\n`);
  writeFileSync(join(dir, 'ledger.json'), `${JSON.stringify(ledger, null, 2)}\n`);
}

export interface ActFixture {
  dir: string;
  meta: ActMeta;
  ledger: LedgerEntry[];
}

/** Every acting fixture in the repository. */
export function actFixtures(): ActFixture[] {
  if (!existsSync(ACT_FIXTURES)) return [];
  const out: ActFixture[] = [];
  for (const agent of readdirSync(ACT_FIXTURES, { withFileTypes: true })) {
    // The README beside the agents' folders.
    if (!agent.isDirectory()) continue;
    const folder = join(ACT_FIXTURES, agent.name);
    for (const name of readdirSync(folder)) {
      const dir = join(folder, name);
      if (!existsSync(join(dir, 'meta.json'))) continue;
      out.push({
        dir,
        meta: JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as ActMeta,
        ledger: JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as LedgerEntry[],
      });
    }
  }
  return out;
}
