/**
 * Where Codebuff (once Manicode) keeps its chats: `projects/<project>/chats/<chat id>/chat-messages.json`
 * under each of its channels' folders, `~/.config/manicode` (and `-dev`, `-staging`), or under the
 * folders `$CODEBUFF_DATA_DIR` lists (comma-separated, each a channel folder or its `projects`), as
 * ccusage reads them. Reading a chat is not here (see `index.ts`): a warm run never reads one.
 */
import { basename, dirname, join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const CHAT_FILE = 'chat-messages.json';

/** The channels Codebuff installs as, each with its own folder under `~/.config`. */
const CHANNELS = ['manicode', 'manicode-dev', 'manicode-staging'];

export function codebuffRoots(env: Env): Root[] {
  const dirs = dirList(env.CODEBUFF_DATA_DIR);
  if (dirs.length > 0) return dirs.map((path) => ({ path, origin: '$CODEBUFF_DATA_DIR' }));
  return CHANNELS.map((c) => ({ path: join(home(env), '.config', c), origin: 'default' }));
}

/**
 * The session a chat file is: `<channel>/<project>/<chat id>`, as ccusage names it, the channel
 * being the folder that holds `projects`.
 */
export function chatSession(path: string): string {
  const chat = dirname(path);
  const project = dirname(dirname(chat));
  const channel = dirname(dirname(project));
  return `${basename(channel)}/${basename(project)}/${basename(chat)}`;
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = basename(root.path) === 'projects' ? root.path : join(root.path, 'projects');
    for (const p of list(projects, problems) ?? []) {
      if (!isDir(projects, p)) continue;
      const chats = join(projects, p.name, 'chats');
      for (const c of list(chats, problems) ?? []) {
        if (!isDir(chats, c)) continue;
        const dir = join(chats, c.name);
        const file = (list(dir, problems) ?? []).find((e) => e.name === CHAT_FILE && isFile(dir, e));
        if (!file) continue;
        const path = join(dir, CHAT_FILE);
        const f = sourceFile(
          { provider: 'codebuff', path, root: root.path, sessionHint: chatSession(path), role: 'main' },
          problems,
        );
        if (f) out.push(f);
      }
    }
  }
  return out;
}

export const codebuffPlace: ProviderPlace<'codebuff'> = {
  id: 'codebuff',
  label: 'Codebuff',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: codebuffRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
