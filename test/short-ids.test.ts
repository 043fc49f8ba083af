/**
 * The short ids of `cctop --list` (issue 28, finding 1): every session row shows one, and every
 * command that takes a session id takes it, as `gh … list` and `git log --oneline` ids are taken;
 * a subagent's id too, by a prefix. What is ambiguous or unknown is refused, naming what there is,
 * with a non-zero exit. Over the bundled demo history, in this process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shortIds } from '../src/index/find.js';
import { main } from '../src/views/cli/main.js';

const home = mkdtempSync(join(tmpdir(), 'cctop-short-ids-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function cctop(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['--demo', ...args], {
    out: (s) => out.push(typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    write: (chunks) =>
      out.push(chunks.map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'))).join('')),
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: { HOME: home, COLUMNS: '100', PATH: process.env.PATH ?? '' },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The ID cell of each row of `--list` with its project · title, as a user reads them off the table. */
async function listedIds(): Promise<{ id: string; title: string }[]> {
  const { out } = await cctop('--list');
  return [...out.matchAll(/^ {2}\S. (\S+) .* (\S+ · .*)$/gm)].map((m) => ({ id: m[1]!, title: m[2]! }));
}

describe('short ids', () => {
  it('are as long as keeps every id apart, and never shorter than four characters', () => {
    const ids = shortIds([{ id: '019a8450-a3e2' }, { id: '019a8e38-8bd7' }, { id: 'a0d12928' }]);
    expect(ids.length).toBe(6);
    expect(ids.of('019a8450-a3e2')).toBe('019a84');
    expect(shortIds([{ id: 'a0d12928' }, { id: 'f98c2860' }]).length).toBe(4);
  });

  it('--list shows one on every row, and each names its own session to report, chat, explain, export and handoff', async () => {
    const rows = await listedIds();
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => r.id)).size).toBe(8);
    for (const { id, title } of rows) {
      const report = await cctop('report', id, '--json');
      expect(report.code, report.err).toBe(0);
      const full: string = JSON.parse(report.out).session.id;
      expect(full.startsWith(id)).toBe(true);
      const project = title.split(' · ')[0]!;
      expect(JSON.parse(report.out).session.project).toMatch(new RegExp(`/${project}$`));
      for (const args of [
        ['chat', id, '--json'],
        ['explain', id, '--json'],
      ]) {
        const r = await cctop(...args);
        expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
        expect(r.out).toContain(full);
      }
    }
    const { id } = rows[0]!;
    const exported = await cctop('export', id);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.out).toMatch(/session `[0-9a-f-]{36}`/);
    const brief = join(home, 'brief.md');
    const handoff = await cctop('handoff', id, '--out', brief);
    expect(handoff.code, handoff.err).toBe(0);
    expect(readFileSync(brief, 'utf8').length).toBeGreaterThan(0);
  });

  it('a prefix several sessions share is refused, naming each of them, with exit 2', async () => {
    for (const command of ['chat', 'report', 'explain', 'export', 'handoff']) {
      const r = await cctop(command, '019a');
      expect(r.code, command).toBe(2);
      expect(r.err).toContain('"019a" matches 3 sessions; give more of the id:');
      for (const id of [
        '019a8450-a3e2-7f85-804e-7d9785910811',
        '019ac7fd-d1f6-74ea-81a6-b0113778a839',
        '019a8e38-8bd7-7185-885a-7a19b0f6b7a7',
      ])
        expect(r.err, command).toContain(id);
    }
  });

  it('chat --agent takes a prefix of a subagent id, and an unknown subagent is an error naming the session’s', async () => {
    const sub = await cctop('chat', 'a0d1', '--agent', 'a3a64484', '--json');
    expect(sub.code, sub.err).toBe(0);
    expect(JSON.parse(sub.out).turns[0].text).toBe('Find every caller of parseInvoice and list them.');
    const unknown = await cctop('chat', 'a0d1', '--agent', 'ffff');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe('');
    expect(unknown.err).toBe(
      'cctop: this session has no subagent "ffff"; its subagents:\n  a3a6448476ea5ca32  Find every caller of parseInvoice and list them.',
    );
    const none = await cctop('chat', '019a84', '--agent', 'a3a6');
    expect(none.code).toBe(2);
    expect(none.err).toBe('cctop: Codex records no subagents of its own in a rollout');
  });
});
