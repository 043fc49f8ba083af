/**
 * `cctop chat <session>`: the conversation in a terminal (readable), as JSON (for programs) or as
 * Markdown (for pasting). Transcript text is printed as text: control characters are made inert so a
 * transcript cannot move the cursor or change the terminal.
 */
import type { Conversation, ToolUse, Turn } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import { providerById } from '../../providers/index.js';
import type { Paint } from './color.js';
import { sanitize } from './format.js';

/** Control characters but newlines and tabs become visible placeholders. */
function inert(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\ufffd');
}

function when(ts: string): string {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) : '';
}

function who(t: Turn, agent: string): string {
  if (t.role === 'user') return 'you';
  if (t.role === 'system') return t.kind === 'compaction' ? 'compaction' : 'harness';
  return t.kind === 'reasoning' ? `${agent} (thinking)` : agent;
}

function toolMark(tool: ToolUse): string {
  return tool.result === null ? '…' : tool.failed ? '✗' : '✓';
}

export function renderChat(s: SessionDoc, c: Conversation, p: Paint, columns: number): string[] {
  const agent = providerById(s.provider).label;
  const out: string[] = [];
  if (!c.supported)
    return [`${agent} session ${s.id}: ${c.note ?? 'no conversation reader for this harness'}`];
  out.push(p.bold(sanitize(s.title ?? s.id)) + p.dim(`  ${s.provider} ${s.id}`));
  if (c.earlier > 0)
    out.push(
      p.dim(
        `… ${c.earlier} earlier turn${c.earlier === 1 ? '' : 's'} (page back with --before ${c.turns[0]?.seq ?? 0})`,
      ),
    );
  for (const t of c.turns) {
    const head = `── #${t.seq} ${who(t, agent)} ${when(t.ts)} `;
    out.push('');
    out.push(p.dim(head + '─'.repeat(Math.max(0, Math.min(columns, 100) - head.length))));
    if (t.text.length > 0) {
      const body = inert(t.text);
      out.push(t.kind === 'reasoning' || t.role === 'system' ? p.dim(body) : body);
      if (t.clipped) out.push(p.dim('(message cut here)'));
    }
    for (const tool of t.tools) {
      const mark = toolMark(tool);
      const colour = mark === '✗' ? p.red : mark === '✓' ? p.green : p.amber;
      const lines = tool.added + tool.removed > 0 ? p.dim(` +${tool.added} -${tool.removed}`) : '';
      out.push(`  ${colour(mark)} ${p.bold(inert(tool.name))} ${inert(tool.detail)}${lines}`);
      if (tool.result !== null && tool.result.length > 0) {
        const head = inert(tool.result).split('\n').slice(0, 4);
        for (const l of head) out.push(p.dim(`      ${l}`));
      }
    }
  }
  return out;
}

export function renderMarkdown(s: SessionDoc, c: Conversation): string {
  const agent = providerById(s.provider).label;
  if (!c.supported) return `_${c.note ?? 'no conversation reader for this harness'}_\n`;
  const out: string[] = [
    `# ${s.title ?? s.id}`,
    '',
    `${agent} session \`${s.id}\`${s.project ? ` in \`${s.project}\`` : ''}`,
    '',
  ];
  if (c.earlier > 0) out.push(`_${c.earlier} earlier turns not shown._`, '');
  const fence = (text: string) => {
    const ticks = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
    return `${ticks}\n${text}\n${ticks}`;
  };
  for (const t of c.turns) {
    out.push(`## ${who(t, agent)}${t.ts ? ` · ${when(t.ts)}` : ''}`, '');
    if (t.text.length > 0)
      out.push(
        t.kind === 'message' && t.role !== 'system' ? t.text : `> ${t.text.replace(/\n/g, '\n> ')}`,
        '',
      );
    for (const tool of t.tools) {
      out.push(`- ${toolMark(tool)} **${tool.name}** \`${tool.detail.replace(/`/g, "'")}\``);
      if (tool.result) out.push('', fence(tool.result), '');
    }
    if (t.tools.length > 0) out.push('');
  }
  return out.join('\n');
}
