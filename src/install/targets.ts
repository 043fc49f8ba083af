/**
 * Which settings file each agent reads, for the entries cctop installs there. Claude Code reads
 * `settings.json` in its config directory: `$CLAUDE_CONFIG_DIR` when set (the first, when cctop is
 * given several), else `~/.claude`, the same rule the Claude provider finds transcripts by.
 *
 * Not here: reading or writing the files (`apply.ts`).
 */
import { join } from 'node:path';
import { claudeRoots } from '../providers/claude/place.js';
import type { Env } from '../providers/types.js';
import type { Target } from './apply.js';

/** Claude Code's user settings, under `env` (its `HOME`, never the process's own in tests). */
export function claudeSettings(env: Env): Target {
  const dir = claudeRoots(env)[0]!.path;
  return { path: join(dir, 'settings.json'), syntax: 'json', label: 'Claude Code settings' };
}
