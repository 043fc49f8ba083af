/**
 * The tools each ledger record called, for tests: the names in the order the table keeps them
 * (sorted), `[]` for a response that called none, null where the harness does not say.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderId } from '../model/facts.js';
import { F, FLAG, type Ledger, RECORD_FIELDS } from '../model/ledger.js';
import { ProblemLog } from '../model/problems.js';
import type { ToolSet } from '../model/tool-sets.js';
import { providerById } from '../providers/index.js';
import { FIXTURES } from './lab/check.js';

export function toolsOf(l: Ledger): (ToolSet | null)[] {
  const out: (ToolSet | null)[] = [];
  for (let at = 0; at < l.data.length; at += RECORD_FIELDS)
    out.push(l.data[at + F.FLAGS]! & FLAG.TOOLS_KNOWN ? l.toolSets[l.data[at + F.TOOLS]!]! : null);
  return out;
}

/**
 * A lab run's transcript with the second of its parallel calls (`call_lab_4`) made to the tool `to`:
 * a response calling two different tools, written as the CLI writes one. The call objects of Gemini
 * CLI, Qwen Code and Pi name their id just before their name (Gemini prefixes the tool to the id).
 */
export const secondCallRenamed =
  (to: string) =>
  (text: string): string =>
    text.replace(/("id":"(?:[a-z_]+__)?call_lab_4","name":")[^"]+"/g, `$1${to}"`);

function jsonlUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => p.endsWith('.jsonl') && statSync(p).isFile());
}

/**
 * The tools of every request in a recorded lab run (`lab/fixtures/<agent>/<run>/`), read from a copy
 * of its home by the agent's provider, file after file; `edit` rewrites its transcripts first.
 */
export function labRequestTools(
  agent: ProviderId,
  run: string,
  edit: (text: string) => string = (t) => t,
): (ToolSet | null)[] {
  const home = mkdtempSync(join(tmpdir(), 'cctop-lab-tools-'));
  try {
    cpSync(join(FIXTURES, agent, run, 'home'), home, { recursive: true });
    for (const path of jsonlUnder(home)) writeFileSync(path, edit(readFileSync(path, 'utf8')));
    const provider = providerById(agent);
    const files = provider.discover(provider.roots({ HOME: home }), new ProblemLog());
    return files.flatMap((f) => toolsOf(provider.parse(f, null).ledger));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
