/**
 * What every agent's stream shares: framing, unparsed lines, and the bounds every event passes.
 * Claude's lines (claude 2.1.212 shapes) stand in for all three agents except where a test names one.
 */
import { describe, expect, it } from 'vitest';
import { claudeDialect } from './agents/claude.js';
import { codexDialect } from './agents/codex.js';
import { copilotDialect } from './agents/copilot.js';
import {
  MAX_EVENT_BYTES,
  MAX_IDENTIFIER_BYTES,
  MAX_LINE,
  MAX_PENDING_TOOL_BYTES,
  MAX_PENDING_TOOLS,
  TRUNCATION_MARK,
} from './bounds.js';
import { StreamParser } from './parser.js';
import { ofKind, parseLines } from './test-support/fake-agent.js';

const claude = (...lines: string[]) => parseLines(claudeDialect, lines);
const toolUse = (id: string, name: string, input: unknown = {}) =>
  JSON.stringify({
    type: 'assistant',
    session_id: 's',
    message: { content: [{ type: 'tool_use', id, name, input }] },
  });
const toolResult = (id: string, content: unknown) =>
  JSON.stringify({
    type: 'user',
    session_id: 's',
    message: { content: [{ type: 'tool_result', tool_use_id: id, content }] },
  });

describe('payload bounds', () => {
  it('an enormous tool result is bounded and marked', () => {
    // The queue bounds how many events wait, not how large one is: with 512 KiB lines that left
    // about 130 MiB reachable in flight.
    const { events } = claude(toolResult('t1', 'x'.repeat(MAX_EVENT_BYTES * 4)));
    const [result] = ofKind(events, 'tool_result');
    expect(Buffer.byteLength(result!.output)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(result!.output.endsWith(TRUNCATION_MARK), 'the cut must be visible').toBe(true);
    expect(result!.id, 'the id survives whole').toBe('t1');
  });

  it('oversized tool arguments stay valid JSON', () => {
    const { events } = claude(toolUse('t1', 'Bash', { command: 'y'.repeat(MAX_EVENT_BYTES * 3) }));
    const [call] = ofKind(events, 'tool_call');
    expect(call!.input).toMatchObject({ truncated: true });
    expect(Buffer.byteLength(JSON.stringify(call!.input))).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  });

  it('ordinary payloads pass through untouched', () => {
    const { events } = claude(
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"pong"}]}}',
    );
    expect(events).toContainEqual({ kind: 'text', text: 'pong' });
  });

  it('a worst-case event stays within the stated ceiling', () => {
    // Every field at its worst in one line at the line bound.
    const huge = 'x'.repeat(MAX_LINE);
    const line = JSON.stringify({
      type: 'assistant',
      session_id: huge,
      message: { content: [{ type: 'tool_use', id: huge, name: huge, input: { command: huge } }] },
    });
    const { events } = claude(line);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      // Payload plus identifiers, with room for the JSON framing.
      expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThanOrEqual(
        MAX_EVENT_BYTES + 4 * MAX_IDENTIFIER_BYTES,
      );
    }
  });

  it('a command catalogue is bounded as a whole, not only name by name', () => {
    const all = Array.from({ length: 20_000 }, (_, i) => `command-number-${i}`);
    const { events } = claude(
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 's', slash_commands: all }),
    );
    const [commands] = ofKind(events, 'commands');
    expect(commands!.commands.all.length).toBeLessThan(all.length);
    expect(Buffer.byteLength(JSON.stringify(commands))).toBeLessThanOrEqual(MAX_EVENT_BYTES + 1024);
  });
});

describe('identifiers', () => {
  it('usable identifiers are never shortened', () => {
    const id = 's'.repeat(MAX_IDENTIFIER_BYTES);
    const { events, terminal } = claude(JSON.stringify({ type: 'system', subtype: 'init', session_id: id }));
    expect(events[0]).toEqual({ kind: 'started', session: id, model: null });
    expect(terminal.session).toBe(id);
  });

  it('an oversized session id is rejected rather than stored', () => {
    const id = 's'.repeat(MAX_IDENTIFIER_BYTES + 1);
    for (const [dialect, line] of [
      [claudeDialect, JSON.stringify({ type: 'system', subtype: 'init', session_id: id })],
      [codexDialect, JSON.stringify({ type: 'thread.started', thread_id: id })],
      [copilotDialect, JSON.stringify({ type: 'result', sessionId: id, exitCode: 0 })],
    ] as const) {
      const { events, terminal } = parseLines(dialect, [line]);
      expect(terminal.session, 'an unusable id must not be stored').toBeNull();
      expect(ofKind(events, 'started'), 'nor announced as a session to resume').toEqual([]);
    }
  });

  it('an oversized tool id drops the id but keeps the event', () => {
    const { events } = claude(toolUse('t'.repeat(MAX_IDENTIFIER_BYTES + 1), 'Bash', { command: 'ls' }));
    const [call] = ofKind(events, 'tool_call');
    expect(call, 'the call itself is still reported').toBeDefined();
    expect(call!.id, 'dropped, not shortened').toBeNull();
    expect(call!.name).toBe('Bash');
  });
});

describe('the pending-tool map', () => {
  it('is bounded by bytes, not only by entries', () => {
    const parser = new StreamParser(claudeDialect);
    // Ids and names just under the identifier bound: the entry count stays far from its limit
    // while the bytes reach theirs.
    for (let i = 0; i < MAX_PENDING_TOOLS; i++) {
      parser.push(toolUse(String(i).padStart(MAX_IDENTIFIER_BYTES, '0'), 'x'.repeat(MAX_IDENTIFIER_BYTES)));
    }
    expect(parser.pendingTools.bytes).toBeLessThanOrEqual(MAX_PENDING_TOOL_BYTES);
    expect(parser.pendingTools.size).toBeLessThan(MAX_PENDING_TOOLS);
  });

  it('is bounded by entries too', () => {
    const parser = new StreamParser(claudeDialect);
    for (let i = 0; i < MAX_PENDING_TOOLS * 2; i++) parser.push(toolUse(`t${i}`, 'Bash'));
    expect(parser.pendingTools.size).toBe(MAX_PENDING_TOOLS);
  });

  it('a completed tool call releases its budget', () => {
    const parser = new StreamParser(claudeDialect);
    for (let i = 0; i < MAX_PENDING_TOOLS * 4; i++) {
      parser.push(toolUse(`toolu_${i}`, 'Bash'));
      parser.push(toolResult(`toolu_${i}`, 'done'));
    }
    expect(parser.pendingTools.bytes, 'budget leaked across paired calls').toBe(0);
    expect(parser.pendingTools.size).toBe(0);
  });
});

describe('lines that are not the agent’s JSON', () => {
  it('are counted and sampled', () => {
    const { terminal } = claude(
      '<html>an error page, not JSON</html>',
      'another bad line',
      '{"type":"result","result":"ok","session_id":"s"}',
    );
    expect(terminal.unparsed).toBe(2);
    expect(terminal.firstUnparsed).toBe('<html>an error page, not JSON</html>');
  });

  it('the sample is short', () => {
    const { terminal } = claude('z'.repeat(10_000));
    expect(terminal.firstUnparsed!.length).toBe(512);
  });

  it('a clean stream reports no parse failures', () => {
    const { terminal } = claude('{"type":"result","result":"ok","session_id":"s"}');
    expect(terminal.unparsed).toBe(0);
    expect(terminal.firstUnparsed).toBeNull();
  });

  it('garbage lines are skipped, not fatal', () => {
    const { events, terminal } = claude(
      'Warning: something on stdout',
      '',
      '{"type":"result","result":"ok","session_id":"s"}',
    );
    expect(ofKind(events, 'text')).toEqual([]);
    expect(terminal.text).toBe('ok');
  });
});

describe('plain-text output', () => {
  it('passes lines through verbatim', () => {
    const { events, terminal } = parseLines(copilotDialect, ['hello', 'world'], 'text');
    expect(events).toEqual([
      { kind: 'text', text: 'hello' },
      { kind: 'text', text: 'world' },
    ]);
    expect(terminal.text).toBe('hello\nworld');
  });
});
