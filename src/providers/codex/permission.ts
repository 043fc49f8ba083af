/**
 * What a Codex `turn_context` says a turn may do without asking: its `approval_policy` (when to ask)
 * and its `sandbox_policy` (what is fenced off), kept in Codex's words as `approval/sandbox` and read
 * as one of cctop's permissions. The sandbox decides most: a read-only sandbox reads only whatever
 * the approval policy, and with no sandbox at all (`danger-full-access`) only the approval policy
 * still stands between the model and the machine.
 *
 * A policy this does not know (a newer sandbox kind, an approval policy written as an object) reads
 * as `unknown`, never as a guess.
 */
import type { Permission } from '../../model/facts.js';

/** A turn's policy: the words as recorded, and what they mean. */
export interface CodexPolicy {
  /** `approval/sandbox`, or the one of them that was recorded. */
  mode: string;
  permission: Permission;
}

/** The policy of a `turn_context`, or null when it records neither half. */
export function codexPolicy(approval: string | null, sandbox: string | null): CodexPolicy | null {
  if (!approval && !sandbox) return null;
  return {
    mode: [approval, sandbox].filter(Boolean).join('/'),
    permission: codexPermission(approval, sandbox),
  };
}

function codexPermission(approval: string | null, sandbox: string | null): Permission {
  switch (sandbox) {
    case 'read-only':
      return 'read-only';
    case 'workspace-write':
      // `untrusted` asks before any command it does not know to be harmless.
      return approval === 'untrusted' ? 'ask' : 'edits';
    case 'danger-full-access':
      switch (approval) {
        case 'never':
        // Without a sandbox nothing fails for `on-failure` to ask about.
        case 'on-failure':
          return 'bypass';
        case 'on-request':
          return 'auto';
        case 'untrusted':
          return 'ask';
        default:
          return 'unknown';
      }
    default:
      return 'unknown';
  }
}
