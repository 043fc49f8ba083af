/**
 * `cctop export <session>`: the whole conversation, every turn and optionally its subagents', as
 * Markdown or JSON, for sharing. `chat --markdown` is the newest window, for reading; this is the
 * record, written as it is read (a turn at a time), so a conversation of any length costs one read
 * and one window of memory.
 *
 * Shared means opened anywhere: in a terminal (`cat`), an editor, a Markdown renderer that passes
 * HTML through, a browser. So every string from the transcript is made safe to print
 * (`safeText`/`safeLine`: no control character, no bidi override), the Markdown escapes what a
 * renderer would read as HTML (`markdown-text.ts`), and the JSON writes `<`, `>` and `&` as `\u`
 * escapes (it can be pasted into a page's script) and format characters as `terminalJson` does.
 *
 * Not here: finding the session or its subagents (`share.ts`), reading turns (`share/turns.ts`).
 */
import { MAX_TEXT_CHARS, type ToolUse, type Turn } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import { placeById } from '../../providers/places.js';
import type { Provider } from '../../providers/types.js';
import { type Walked, walkConversation } from '../../share/turns.js';
import { fenced, inlineCode, markdownBody, markdownLine } from '../markdown-text.js';
import { printable, safeLine, safeText, terminalJson } from '../terminal-text.js';
import { toolMark, when, who } from './chat.js';
import { PLAIN } from './color.js';

export const EXPORT_FORMATS = ['markdown', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const isExportFormat = (word: string): word is ExportFormat =>
  (EXPORT_FORMATS as readonly string[]).includes(word);

/** Bumped when a field of the JSON export changes meaning or goes. */
export const EXPORT_VERSION = 1;

/** A subagent of the session, as the report names it. */
export interface SubagentRef {
  agent: string;
  type: string | null;
  title: string | null;
}

export interface ExportInput {
  session: SessionDoc;
  provider: Provider;
  /** The subagents whose conversations follow the session's own; empty without `--subagents`. */
  subagents: readonly SubagentRef[];
  format: ExportFormat;
  /** Where each piece goes, in order. */
  write(chunk: string): void;
  nowMs: number;
}

/** What an export wrote: turns, and conversations that could not be read (with why). */
export interface Exported {
  turns: number;
  unread: { agent: string | null; note: string }[];
}

/** Every string in a value made safe to print, newlines kept: the JSON's strings are text someone prints. */
function safeValue(v: unknown): unknown {
  if (typeof v === 'string') return safeText(v);
  if (Array.isArray(v)) return v.map(safeValue);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [safeText(k), safeValue(x)]));
  return v;
}

/** JSON that a terminal and a page's script both take as data. */
export const shareJson = (v: unknown): string =>
  terminalJson(safeValue(v)).replace(
    /[<>&]/g,
    (c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

function toolMarkdown(tool: ToolUse): string[] {
  const detail = safeLine(tool.detail);
  const lines = tool.added + tool.removed > 0 ? ` +${tool.added} -${tool.removed}` : '';
  const out = [
    `- ${toolMark(tool)} **${markdownLine(safeLine(tool.name))}**${detail ? ` ${inlineCode(detail)}` : ''}${lines}`,
  ];
  if (tool.result) out.push('', fenced(safeText(tool.result)), '');
  if (tool.diff.length > 0) out.push('', fenced(safeText(tool.diff.join('\n')), 'diff'), '');
  return out;
}

function turnMarkdown(t: Turn, agent: string, level: string): string {
  const out = [`${level} #${t.seq} ${who(t, agent)}${t.ts ? ` · ${when(t.ts)}` : ''}`, ''];
  if (t.text.length > 0) {
    const body = markdownBody(safeText(t.text));
    out.push(t.kind === 'message' && t.role !== 'system' ? body : `> ${body.replace(/\n/g, '\n> ')}`, '');
    if (t.clipped)
      out.push(`_(message cut here: cctop keeps the first ${MAX_TEXT_CHARS} characters of one)_`, '');
  }
  for (const tool of t.tools) out.push(...toolMarkdown(tool));
  if (t.tools.length > 0) out.push('');
  // No colour in Markdown: whatever a field let through, nothing here can act on a terminal.
  return printable(`${out.join('\n')}\n`, PLAIN);
}

function markdownHead(o: ExportInput): string {
  const s = o.session;
  const label = placeById(s.provider).label;
  const where = s.project ? ` in ${inlineCode(safeLine(s.project))}` : '';
  return printable(
    [
      `# ${markdownLine(safeLine(s.title ?? s.id))}`,
      '',
      `${label} session ${inlineCode(safeLine(s.id))}${where}, exported by cctop on ${new Date(o.nowMs).toISOString().slice(0, 10)}.`,
      '',
      '',
    ].join('\n'),
    PLAIN,
  );
}

const subagentHeading = (a: SubagentRef): string =>
  `# Subagent ${inlineCode(safeLine(a.agent))}${a.type ? ` (${markdownLine(safeLine(a.type))})` : ''}${a.title ? `: ${markdownLine(safeLine(a.title))}` : ''}`;

/** Walk one conversation of the export: the session's own (`agent` null) or a subagent's. */
function walk(o: ExportInput, agent: string | null, visit: (t: Turn) => void): Walked {
  if (o.session.deleted)
    return {
      kind: 'unread',
      note: 'the transcript of this session has been deleted; its words are gone',
      turns: 0,
    };
  return walkConversation(o.provider, o.session.file, agent, visit);
}

/** Write the export; returns what was written. */
export function writeExport(o: ExportInput): Exported {
  return o.format === 'json' ? writeJson(o) : writeMarkdown(o);
}

function writeMarkdown(o: ExportInput): Exported {
  const label = placeById(o.session.provider).label;
  const done: Exported = { turns: 0, unread: [] };
  o.write(markdownHead(o));
  const part = (agent: string | null, level: string) => {
    const walked = walk(o, agent, (t) =>
      o.write(turnMarkdown(t, agent === null ? label : 'subagent', level)),
    );
    done.turns += walked.turns;
    if (walked.kind === 'unread') {
      done.unread.push({ agent, note: walked.note });
      o.write(printable(`_${markdownLine(safeLine(walked.note))}_\n\n`, PLAIN));
    }
  };
  part(null, '##');
  for (const a of o.subagents) {
    o.write(printable(`${subagentHeading(a)}\n\n`, PLAIN));
    part(a.agent, '##');
  }
  return done;
}

function writeJson(o: ExportInput): Exported {
  const done: Exported = { turns: 0, unread: [] };
  const turns = (agent: string | null): string | null => {
    let first = true;
    const walked = walk(o, agent, (t) => {
      o.write(`${first ? '' : ','}${shareJson(t)}`);
      first = false;
    });
    done.turns += walked.turns;
    if (walked.kind === 'read') return null;
    done.unread.push({ agent, note: walked.note });
    return walked.note;
  };
  o.write(
    `{"version":${EXPORT_VERSION},"exportedAt":${JSON.stringify(new Date(o.nowMs).toISOString())},"session":${shareJson(o.session)},"turns":[`,
  );
  const note = turns(null);
  o.write(`],"note":${shareJson(note)},"subagents":[`);
  o.subagents.forEach((a, i) => {
    o.write(
      `${i === 0 ? '' : ','}{"agent":${shareJson(a.agent)},"type":${shareJson(a.type)},"title":${shareJson(a.title)},"turns":[`,
    );
    const n = turns(a.agent);
    o.write(`],"note":${shareJson(n)}}`);
  });
  o.write(']}\n');
  return done;
}
