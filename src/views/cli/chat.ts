/**
 * `cctop chat <session>`: the conversation in a terminal (readable), as JSON (for programs) or as
 * Markdown (for pasting). Transcript text is printed as text: every message, name, path and id is
 * made safe to print (`../terminal-text.ts`), the Markdown too, since it is pasted into terminals
 * and served as a download, so a transcript cannot move the cursor or change the terminal.
 */
import type { Conversation, ToolUse, Turn } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import { placeById } from '../../providers/places.js';
import { fenced, inlineCode } from '../markdown-text.js';
import { printable, safeLine, safeText } from '../terminal-text.js';
import { type Paint, PLAIN } from './color.js';
import { counted } from './format.js';

/**
 * What the conversation's heading names: the session, its harness, its title and project, and for
 * another machine's session (`--host`) the machine. A remote conversation comes with no more of its
 * row than this.
 */
export type ChatHead = Pick<SessionDoc, 'provider' | 'id' | 'title' | 'project'> & { host?: string };

/** ` on devbox` for another machine's session, else nothing. */
const onHost = (s: ChatHead): string => (s.host === undefined ? '' : ` on ${safeLine(s.host)}`);

/** Inline Markdown code of a field from the transcript. */
const code = (text: string): string => inlineCode(safeLine(text));

export function when(ts: string): string {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) : '';
}

export function who(t: Turn, agent: string): string {
  if (t.role === 'user') return 'you';
  if (t.role === 'system') return t.kind === 'compaction' ? 'compaction' : 'harness';
  return t.kind === 'reasoning' ? `${agent} (thinking)` : agent;
}

export function toolMark(tool: ToolUse): string {
  return tool.result === null ? '…' : tool.failed ? '✗' : '✓';
}

/** `at`: the turn `--at` asked for, marked so the eye finds it (null: none). */
export function renderChat(
  s: ChatHead,
  c: Conversation,
  p: Paint,
  columns: number,
  at: number | null = null,
): string[] {
  const agent = placeById(s.provider).label;
  const out: string[] = [];
  if (!c.supported)
    return [
      printable(
        `${agent} session ${safeLine(s.id)}: ${safeLine(c.note ?? 'no conversation reader for this harness')}`,
        p,
      ),
    ];
  out.push(p.bold(safeLine(s.title ?? s.id)) + p.dim(`  ${s.provider} ${safeLine(s.id)}${onHost(s)}`));
  if (c.earlier > 0)
    out.push(
      p.dim(`… ${counted(c.earlier, 'earlier turn')} (page back with --before ${c.turns[0]?.seq ?? 0})`),
    );
  for (const t of c.turns) {
    const mark = t.seq === at ? '▶▶' : '──';
    const head = `${mark} #${t.seq} ${who(t, agent)} ${when(t.ts)} `;
    const rule = head + '─'.repeat(Math.max(0, Math.min(columns, 100) - head.length));
    out.push('');
    out.push(t.seq === at ? p.bold(rule) : p.dim(rule));
    if (t.text.length > 0) {
      const body = safeText(t.text);
      out.push(t.kind === 'reasoning' || t.role === 'system' ? p.dim(body) : body);
      if (t.clipped) out.push(p.dim('(message cut here)'));
    }
    for (const tool of t.tools) {
      const mark = toolMark(tool);
      const colour = mark === '✗' ? p.red : mark === '✓' ? p.green : p.amber;
      const lines = tool.added + tool.removed > 0 ? p.dim(` +${tool.added} -${tool.removed}`) : '';
      out.push(`  ${colour(mark)} ${p.bold(safeLine(tool.name))} ${safeLine(tool.detail)}${lines}`);
      if (tool.result !== null && tool.result.length > 0) {
        const head = safeText(tool.result).split('\n').slice(0, 4);
        for (const l of head) out.push(p.dim(`      ${l}`));
      }
    }
  }
  return out.map((line) => printable(line, p));
}

export function renderMarkdown(s: ChatHead, c: Conversation): string {
  const agent = placeById(s.provider).label;
  if (!c.supported) return `_${safeLine(c.note ?? 'no conversation reader for this harness')}_\n`;
  const out: string[] = [
    `# ${safeLine(s.title ?? s.id)}`,
    '',
    `${agent} session ${code(s.id)}${s.project ? ` in ${code(s.project)}` : ''}${onHost(s)}`,
    '',
  ];
  if (c.earlier > 0) out.push(`_${c.earlier} earlier turns not shown._`, '');
  for (const t of c.turns) {
    out.push(`## ${who(t, agent)}${t.ts ? ` · ${when(t.ts)}` : ''}`, '');
    if (t.text.length > 0)
      out.push(
        t.kind === 'message' && t.role !== 'system'
          ? safeText(t.text)
          : `> ${safeText(t.text).replace(/\n/g, '\n> ')}`,
        '',
      );
    for (const tool of t.tools) {
      out.push(`- ${toolMark(tool)} **${safeLine(tool.name)}** ${code(tool.detail)}`);
      if (tool.result) out.push('', fenced(safeText(tool.result)), '');
    }
    if (t.tools.length > 0) out.push('');
  }
  // No colour in Markdown: whatever a field let through, nothing here can act on a terminal.
  return printable(out.join('\n'), PLAIN);
}
