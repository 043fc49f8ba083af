import { basename, dirname, join } from 'node:path';
import { oneLine } from '../../model/facts.js';
import { DriftTally } from '../drift.js';
import { readHead } from '../fsutil.js';
import { parsedLines, readJsonl } from '../read.js';
import { memberRead, splitMember } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { COPILOT_DRIFT } from './known.js';
import { readOtelSession } from './otel.js';
import { type CopilotCarry, CopilotParser, emptyCopilotCarry } from './parser.js';
import { lineFromJson } from './record.js';

/** `workspace.yaml` is a handful of keys; only its first bytes are read. */
const MAX_WORKSPACE_BYTES = 64 << 10;

/** The `summary:` of a `workspace.yaml` (a plain or quoted scalar, or a `|`/`>` block). */
export function workspaceSummary(yaml: string): string | null {
  const lines = yaml.split('\n');
  const at = lines.findIndex((l) => /^summary:/.test(l));
  if (at === -1) return null;
  let value = lines[at]!.slice('summary:'.length).trim();
  if (/^[|>][+-]?$/.test(value)) {
    const block: string[] = [];
    for (const l of lines.slice(at + 1)) {
      if (l.length > 0 && !/^\s/.test(l)) break;
      block.push(l.trim());
    }
    value = block.join(' ');
  } else if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) {
    const quote = value[0];
    value = value.slice(1, -1);
    value = quote === "'" ? value.replace(/''/g, "'") : value.replace(/\\"/g, '"').replace(/\\n/g, ' ');
  }
  const t = oneLine(value);
  return t.length > 0 ? t : null;
}

function readSummary(eventsPath: string): string | null {
  const head = readHead(join(dirname(eventsPath), 'workspace.yaml'), MAX_WORKSPACE_BYTES);
  return head === null ? null : workspaceSummary(head.text);
}

export function parse(
  file: SourceFile,
  previous: ParseResult<CopilotCarry> | null,
): ParseResult<CopilotCarry> {
  // A session in an OpenTelemetry export: read whole each time the export changes, nothing carried.
  const member = splitMember(file.path);
  if (member !== null) {
    const { facts, ledger } = readOtelSession(member.database, member.member);
    return { ...memberRead(file, facts, ledger), carry: emptyCopilotCarry() };
  }
  const result = readJsonl(file, previous, (facts, carry, ledger) =>
    // Every line is parsed whole here: what this reader does not know is looked at in the same object.
    parsedLines(
      new CopilotParser(facts, carry ?? emptyCopilotCarry(), ledger),
      new DriftTally(facts, COPILOT_DRIFT),
      lineFromJson,
    ),
  );
  if (basename(file.path) === 'events.jsonl') {
    const summary = readSummary(file.path);
    if (summary !== null) result.facts.titles.ai = summary;
  }
  return result;
}
