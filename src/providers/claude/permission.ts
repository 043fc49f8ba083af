/**
 * What Claude Code's `permissionMode` (on its user records) means, as one of cctop's permissions.
 * The table and the document show the typed value; the words stay in `permissionMode`. A mode this
 * list does not know reads as `unknown` rather than as a guess: Claude Code adds modes now and then.
 */
import type { Permission } from '../../model/facts.js';

export function claudePermission(mode: string): Permission {
  switch (mode) {
    case 'default':
    // 2.1.328's `--help` names the default mode `manual`; its records still say `default`.
    case 'manual':
      return 'ask';
    case 'acceptEdits':
      return 'edits';
    case 'plan':
      return 'plan';
    case 'auto':
      return 'auto';
    case 'dontAsk':
      return 'deny';
    case 'bypassPermissions':
      return 'bypass';
    default:
      return 'unknown';
  }
}
