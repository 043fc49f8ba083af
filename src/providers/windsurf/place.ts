/**
 * Where Windsurf's chats are, which tabs each workspace database holds, and how they are sized: the
 * half of the provider a run answering from the index needs. A tab is only known by reading the
 * database's chat data, so discovery needs `../sqlite.ts` and `record.ts` (the tab list); the
 * tabs it read are kept here for `parse` (see `index.ts`), which turns one into facts.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BAD_LINE_REASON } from '../../model/json.js';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { home, isDir, list, statOf } from '../fsutil.js';
import { columnsOf, type Database, memberPath, readOnly, validMember } from '../sqlite.js';
import type { Env, ProviderPlace, Root, SourceFile } from '../types.js';
import { CHAT_KEYS, tabsFrom } from './record.js';

/** Chat data past this size is not read: it would be one value parsed whole, per scan. */
export const MAX_CHAT_BYTES = 64 << 20;

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function windsurfRoots(env: Env): Root[] {
  const dir = first(env.WINDSURF_USER_DIR);
  if (dir) return [{ path: dir, origin: '$WINDSURF_USER_DIR' }];
  const h = home(env);
  let config: string;
  if (process.platform === 'darwin') config = join(h, 'Library', 'Application Support');
  else if (process.platform === 'win32') config = first(env.APPDATA) ?? join(h, 'AppData', 'Roaming');
  else config = first(env.XDG_CONFIG_HOME) ?? join(h, '.config');
  return [{ path: join(config, 'Windsurf', 'User'), origin: 'default' }];
}

/** The chat data of a workspace database, from the first key that holds any. */
function chatData(db: Database): string | null {
  if (!columnsOf(db, 'ItemTable').has('value')) return null;
  const size = db.prepare('SELECT length(value) AS n FROM ItemTable WHERE key = ?');
  const value = db.prepare('SELECT value FROM ItemTable WHERE key = ?');
  for (const key of CHAT_KEYS) {
    const n = (size.get(key) as { n: number | null } | undefined)?.n;
    if (n === undefined || n === null || n === 0 || n > MAX_CHAT_BYTES) continue;
    const v = (value.get(key) as { value: unknown } | undefined)?.value;
    const text = typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : null;
    if (text !== null && text.length > 0) return text;
  }
  return null;
}

/** The database and its write-ahead log together: either changing is a change. */
function fingerprint(path: string): { size: number; mtimeMs: number; ino: number } | null {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return null;
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  return {
    size: st.size + (wal?.size ?? 0),
    mtimeMs: Math.max(st.mtimeMs, wal?.mtimeMs ?? 0),
    ino: st.ino,
  };
}

type Tabs = ReturnType<typeof tabsFrom>;

const tabCache = new Map<string, { size: number; mtimeMs: number; read: Tabs }>();

/**
 * The tabs of a workspace database, read once per change of it (discovery, then each `parse`), and
 * why there are none when its chat data is not JSON.
 */
export function tabsOf(path: string, fp: { size: number; mtimeMs: number }): Tabs {
  const known = tabCache.get(path);
  if (known && known.size === fp.size && known.mtimeMs === fp.mtimeMs) return known.read;
  const data = chatData(readOnly(path));
  const read = data === null ? { tabs: [], bad: null } : tabsFrom(data);
  tabCache.set(path, { size: fp.size, mtimeMs: fp.mtimeMs, read });
  return read;
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const storage = join(root.path, 'workspaceStorage');
    for (const w of list(storage, problems) ?? []) {
      if (!isDir(storage, w)) continue;
      const path = join(storage, w.name, 'state.vscdb');
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
      const fp = fingerprint(path);
      if (!fp || !statOf(path, problems)) continue;
      try {
        const { tabs, bad } = tabsOf(path, fp);
        if (bad !== null)
          problems.add({
            kind: 'bad-lines',
            path,
            count: 1,
            detail: `Windsurf's chat data ${BAD_LINE_REASON[bad]}: its chats are not shown`,
          });
        for (const tab of tabs) {
          if (!validMember(tab.id) || tab.id.includes('/')) continue;
          out.push({
            provider: 'windsurf',
            path: memberPath(path, tab.id),
            root: root.path,
            sessionHint: tab.id,
            role: 'main',
            ...fp,
          });
        }
      } catch (err) {
        problems.add({
          kind: 'unreadable',
          path,
          count: null,
          detail: `Windsurf's workspace database could not be read (${describeFsError(err)})`,
        });
      }
    }
  }
  return out;
}

export const windsurfPlace: ProviderPlace<'windsurf'> = {
  id: 'windsurf',
  label: 'Windsurf',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: windsurfRoots,
  discover,
  compactRatio: () => null,
  contextWindow: () => null,
  noConversation:
    'Windsurf keeps its chats in an editor database whose shape is undocumented and moves between releases; cctop reads only titles and tool calls from it',
};
