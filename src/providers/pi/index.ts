/**
 * Pi (pi-coding-agent): `sessions/--<cwd>--/<time>_<id>.jsonl` under `$PI_CODING_AGENT_DIR` (or
 * `~/.pi/agent`); `$PI_CODING_AGENT_SESSION_DIR` names the sessions folder itself.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { home, isFile, list, statOf } from '../fsutil.js';
import { extracting, readJsonl } from '../read.js';
import type { Env, ParseResult, Provider, Root, SourceFile } from '../types.js';
import { emptyPiCarry, type PiCarry, PiParser } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

/** Sessions sit one folder deep (per working directory); a little slack for layouts not seen yet. */
const MAX_DEPTH = 3;

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function piRoots(env: Env): Root[] {
  const sessions = first(env.PI_CODING_AGENT_SESSION_DIR);
  if (sessions) return [{ path: sessions, origin: '$PI_CODING_AGENT_SESSION_DIR' }];
  const agent = first(env.PI_CODING_AGENT_DIR);
  if (agent) return [{ path: join(agent, 'sessions'), origin: '$PI_CODING_AGENT_DIR' }];
  return [{ path: join(home(env), '.pi', 'agent', 'sessions'), origin: 'default' }];
}

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  if (depth > MAX_DEPTH) return;
  for (const e of list(dir, problems) ?? []) {
    if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
      const path = join(dir, e.name);
      const st = statOf(path, problems);
      if (!st) continue;
      out.push({
        provider: 'pi',
        path,
        root,
        sessionHint: null,
        role: 'main',
        size: st.size,
        mtimeMs: st.mtimeMs,
        ino: st.ino,
      });
    } else if (e.isDirectory()) {
      // Real directories only below the root: a symbolic link loop cannot trap the walk.
      walk(join(dir, e.name), root, depth + 1, problems, out);
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) walk(root.path, root.path, 0, problems, out);
  return out;
}

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new PiParser(facts, (carry as PiCarry | null) ?? emptyPiCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}

export const pi: Provider = {
  id: 'pi',
  label: 'Pi',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: piRoots,
  discover,
  parse,
  // Pi compacts a fixed number of tokens before the window fills, not at a fraction of it.
  compactRatio: () => null,
  contextWindow: (q) => {
    const known = q.reportedWindow ?? q.catalogueWindow;
    return known !== null && q.used !== null && q.used > known ? q.used : known;
  },
};
