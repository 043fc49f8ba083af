/**
 * One tool call: its arguments read (`args.ts`), the tool run, and whatever goes wrong turned into an
 * error result the calling agent can act on. A bad argument says what was expected; a fault of
 * cctop's says so in one line, never with a stack or a file's content, and the server goes on.
 *
 * Not here: the protocol (`server.ts`), or the tools' own logic (`sessions.ts`, `conflicts.ts`).
 */

import type { Env } from '../providers/types.js';
import type { CommonOptions } from '../views/cli/options.js';
import { ArgError, absolute, argsOf, optInt, optPaths, optString, reqString } from './args.js';
import { errorResult, type ToolResult } from './data.js';
import type { WaitContext } from './sessions.js';
import type { Source } from './source.js';
import {
  DEFAULT_LIST,
  DEFAULT_WAIT_SECONDS,
  isToolName,
  MAX_HITS,
  MAX_LIST,
  MAX_WAIT_SECONDS,
  type ToolName,
} from './tools.js';

export interface CallContext extends WaitContext {
  source: Source;
  /** Where to look (`HOME`, `CCTOP_CACHE_DIR`, …), for the search index. */
  env: Env;
  /** The server's own options (`cctop mcp --provider claude`). */
  options: Pick<CommonOptions, 'providers' | 'timeZone'>;
}

/** Run tool `name` with `rawArgs`; never throws. */
export async function callTool(name: string, rawArgs: unknown, ctx: CallContext): Promise<ToolResult> {
  if (!isToolName(name)) return errorResult(`cctop has no tool named ${JSON.stringify(name.slice(0, 100))}`);
  try {
    return await run(name, argsOf(rawArgs), ctx);
  } catch (err) {
    if (err instanceof ArgError) return errorResult(`${name}: ${err.message}`);
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return errorResult(`${name} failed: ${why}`);
  }
}

async function run(name: ToolName, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
  switch (name) {
    case 'list_sessions': {
      const dir = optString(args, 'directory');
      const limit = optInt(args, 'limit', { min: 1, max: MAX_LIST, fallback: DEFAULT_LIST });
      const { listSessions } = await import('./sessions.js');
      return listSessions(
        await ctx.source.picture(),
        dir === null ? null : absolute('directory', dir),
        limit,
      );
    }
    case 'search': {
      const { searchTool } = await import('./search.js');
      return searchTool(ctx.env, args, { ...ctx.options, maxHits: MAX_HITS });
    }
    case 'get_session': {
      const id = reqString(args, 'id');
      const { getSession } = await import('./sessions.js');
      return getSession(ctx.source, id.trim());
    }
    case 'check_conflicts': {
      const paths = optPaths(args, 'paths');
      const dir = optString(args, 'directory');
      const exclude = optString(args, 'exclude');
      if (paths.length === 0 && dir === null) throw new ArgError('give paths, a directory, or both');
      const { checkConflicts } = await import('./conflicts.js');
      return checkConflicts(await ctx.source.picture(), {
        paths,
        directories: dir === null ? [] : [absolute('directory', dir)],
        exclude: exclude === null || exclude.trim() === '' ? null : exclude.trim(),
      });
    }
    case 'wait_for_session': {
      const id = reqString(args, 'id');
      const seconds = optInt(args, 'timeoutSeconds', {
        min: 1,
        max: MAX_WAIT_SECONDS,
        fallback: DEFAULT_WAIT_SECONDS,
      });
      const { waitForSession } = await import('./sessions.js');
      return waitForSession(ctx.source, id.trim(), seconds, ctx);
    }
  }
}
