/**
 * Where Cursor's agent transcripts are, how they are sized, and why there is no conversation reader:
 * the half of the provider a run answering from the index needs. Reading a transcript is not here
 * (see `index.ts`): a warm run never reads one, so it should not load the parser to find the files.
 */
import { basename, join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import type { Env, ProviderPlace, Root, SourceFile } from '../types.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function cursorRoots(env: Env): Root[] {
  const dir = first(env.CURSOR_HOME);
  if (dir) return [{ path: dir, origin: '$CURSOR_HOME' }];
  return [{ path: join(home(env), '.cursor'), origin: 'default' }];
}

function add(
  out: SourceFile[],
  path: string,
  root: string,
  sessionHint: string,
  role: SourceFile['role'],
  problems: ProblemLog,
): void {
  const f = sourceFile({ provider: 'cursor', path, root, sessionHint, role }, problems);
  if (f) out.push(f);
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = join(root.path, 'projects');
    for (const p of list(projects, problems) ?? []) {
      if (!isDir(projects, p)) continue;
      const transcripts = join(projects, p.name, 'agent-transcripts');
      for (const e of list(transcripts, problems) ?? []) {
        if (e.name.endsWith('.jsonl') && isFile(transcripts, e)) {
          add(out, join(transcripts, e.name), root.path, basename(e.name, '.jsonl'), 'main', problems);
        } else if (isDir(transcripts, e)) {
          const dir = join(transcripts, e.name);
          for (const s of list(dir, problems) ?? []) {
            if (s.name.endsWith('.jsonl') && isFile(dir, s)) {
              const main = basename(s.name, '.jsonl') === e.name;
              add(out, join(dir, s.name), root.path, e.name, main ? 'main' : 'subagent', problems);
            } else if (s.name === 'subagents' && isDir(dir, s)) {
              const subs = join(dir, s.name);
              for (const a of list(subs, problems) ?? []) {
                if (a.name.endsWith('.jsonl') && isFile(subs, a)) {
                  add(out, join(subs, a.name), root.path, e.name, 'subagent', problems);
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

export const cursorPlace: ProviderPlace<'cursor'> = {
  id: 'cursor',
  label: 'Cursor',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: cursorRoots,
  discover,
  compactRatio: () => null,
  contextWindow: () => null,
  noConversation:
    'Cursor’s transcripts do not say reliably who spoke, when, or how a call ended; the tool calls cctop shows come from them and are complete',
};
