/**
 * What cctop knows of Claude Code's transcript records, for `cctop doctor`'s drift count
 * (`providers/drift.ts`): every record type and top-level field the versions it was written against
 * write (2.1.328 in the lab, 2.1.80 in the demo, older releases back to 1.0), whether the reader uses
 * it or knows it can be passed over. A name missing here is one a newer Claude Code added: doctor counts
 * it against the version that wrote it. Not here: what any of them means (the readers beside this).
 */

import { type JsonObject, str } from '../../model/json.js';
import type { DriftReader, Known, Sampled } from '../drift.js';
import { eachMember, SkimError } from '../skim.js';

export const CLAUDE_KNOWN: Known = {
  types: new Set([
    'user',
    'assistant',
    'system',
    'summary',
    'attachment',
    'progress',
    'file-history-snapshot',
    'permission-mode',
    'mode',
    'queue-operation',
    'agent-name',
    'custom-title',
    'ai-title',
    'last-prompt',
    'frame-link',
    'pr-link',
    'started',
    'result',
    'relocated',
    'worktree-state',
    'bridge-session',
    'atis-latch',
    'api-request-shape',
    'api-request-blob',
    'api-request',
    'tools-used',
    'cost-state',
    // 2.1.332: a call a script or REPL tool ran, not counted as the model's (`record.ts`).
    'host-row',
  ]),
  fields: new Set([
    'agentId',
    'agentName',
    'aiTitle',
    'apiBlockIndex',
    'apiRefusalCategory',
    'apiRefusalExplanation',
    'atis',
    'attachment',
    'attributionAgent',
    'attributionPlugin',
    'attributionSkill',
    'base',
    'bridgeSessionId',
    'cacheControl',
    'cause',
    'classifierMetaLines',
    'compactMetadata',
    'content',
    'customTitle',
    'cwd',
    'data',
    'direction',
    'durationMs',
    'effort',
    'entrypoint',
    'error',
    'errorDetails',
    'fallbackModel',
    'frameUrl',
    'gitBranch',
    'hasOutput',
    'hasUnknownModelCost',
    'hash',
    'hookAdditionalContext',
    'hookCount',
    'hookErrors',
    'hookInfos',
    'id',
    'imagePasteIds',
    'interruptedByShutdown',
    'interruptedMessageId',
    'isAbortedMidStream',
    'isApiErrorMessage',
    'isCompactSummary',
    'isMeta',
    'isSidechain',
    'isSnapshotUpdate',
    'isVisibleInTranscriptOnly',
    'keep',
    'key',
    'lastPrompt',
    'lastSequenceNum',
    'leafUuid',
    'level',
    'logicalParentUuid',
    'madeBy',
    'maxRetries',
    'mcpMeta',
    'message',
    'messageCount',
    'messageId',
    'mode',
    'modelUsage',
    'operation',
    'origin',
    'originalModel',
    'ownerAccountUuid',
    'ownerOrganizationUuid',
    'params',
    'parentToolUseID',
    'parentUuid',
    'path',
    'pendingBackgroundAgentCount',
    'perTurnEffort',
    'permissionDecision',
    'permissionMode',
    'prNumber',
    'prRepository',
    'prUrl',
    'preventedContinuation',
    'promptCacheRequested',
    'promptId',
    'promptSource',
    'querySource',
    'refusedUserMessageUuid',
    'relocatedCwd',
    'rendered',
    'renderedBesideToolResult',
    'renderedRole',
    'requestDigest',
    'requestId',
    'requestRef',
    'requestedModel',
    'result',
    'retractedMessageUuids',
    'retryAttempt',
    'retryInMs',
    'sandboxed',
    'scope',
    'sessionId',
    'sessionKind',
    'session_id',
    'shape',
    'shapeHash',
    'slug',
    'snapshot',
    'source',
    'sourceToolAssistantUUID',
    'sourceToolUseID',
    'startTime',
    'stopReason',
    'subtype',
    'summary',
    'supersedesUuids',
    'tail',
    'thinkingMetadata',
    'timestamp',
    'title',
    'todos',
    'toolDenialKind',
    'toolEndsTurn',
    'toolInputStreamMs',
    'toolUseID',
    'toolUseResult',
    'tools',
    'totalAPIDuration',
    'totalAPIDurationWithoutRetries',
    'totalCostUSD',
    'totalDuration',
    'totalLinesAdded',
    'totalLinesRemoved',
    'totalToolDuration',
    'trigger',
    'turnCompanion',
    'turnOrigin',
    'turnPosition',
    'type',
    'userType',
    'uuid',
    'version',
    'worktreeSession',
    // 2.1.332: who wrote a user row (`conversation.ts`), and the virtual calls (`record.ts`).
    'rowSource',
    'isVirtual',
    'ranByToolUseId',
  ]),
};

const BACKSLASH = 0x5c;
const TYPE = Buffer.from('type');
const VERSION = Buffer.from('version');

/**
 * A line's own keys, its `type` and its `version` from its bytes, as `Object.keys` and `str` of the
 * parsed line give them: keys in the order first written, a repeated key's last value. Null (parse
 * it instead) for what the walk would have to decode to be sure of: an escaped key or string, or
 * a line that is not an object. The line was already read by the extractor, so its envelope holds;
 * unlike `JSON.parse`, the walk does not look inside the values it skips.
 */
function skimmedLine(b: Buffer, start: number, end: number): Sampled | null {
  const fields: string[] = [];
  const seen = new Set<string>();
  let type: string | null = null;
  let version: string | null = null;
  let sure = true;
  const plain = (s: number, e: number) => {
    const at = b.indexOf(BACKSLASH, s);
    return at === -1 || at >= e;
  };
  const text = (vs: number, ve: number): string | null =>
    b[vs] === 0x22 && plain(vs + 1, ve - 1) ? b.toString('utf8', vs + 1, ve - 1) : null;
  try {
    eachMember(b, start, end, (ks, ke, vs, ve) => {
      if (!plain(ks, ke)) sure = false;
      const name = b.toString('utf8', ks, ke);
      if (!seen.has(name)) {
        seen.add(name);
        fields.push(name);
      }
      const wanted =
        ke - ks === 4 && b.compare(TYPE, 0, 4, ks, ke) === 0
          ? 'type'
          : ke - ks === 7 && b.compare(VERSION, 0, 7, ks, ke) === 0
            ? 'version'
            : null;
      if (wanted === null) return;
      // A string with an escape is decoded by the full parse; any other value is not a string.
      if (b[vs] === 0x22 && !plain(vs + 1, ve - 1)) sure = false;
      if (wanted === 'type') type = text(vs, ve);
      else version = text(vs, ve);
    });
  } catch (err) {
    if (err instanceof SkimError) return null;
    throw err;
  }
  return sure ? { type, version, fields } : null;
}

export const CLAUDE_DRIFT: DriftReader = {
  known: CLAUDE_KNOWN,
  type: (o: JsonObject) => str(o.type),
  version: (o: JsonObject) => str(o.version),
  fields: (o: JsonObject) => Object.keys(o),
  skimmed: skimmedLine,
};
