import { describe, expect, it } from 'vitest';
import { emptyFacts } from '../../model/facts.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { ClaudeParser, emptyClaudeCarry } from './parser.js';
import { claudePermission } from './permission.js';
import { lineFromJson } from './record.js';

/** A user record as Claude Code 2.1.328 wrote it in the lab (trimmed), in the given mode. */
const userRecord = (mode: string) =>
  JSON.parse(
    `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"[lab:call] Follow the lab script call."},"uuid":"ab174dae-6ffb-4646-9331-100f7e1f4beb","timestamp":"2026-12-01T21:24:19.027Z","permissionMode":"${mode}","cwd":"/tmp/work","sessionId":"02d7b670-5237-46d6-b46d-86ffd47bdf03","version":"2.1.328"}`,
  );

describe("Claude Code's permission modes", () => {
  it('each mode its records carry reads as what it lets the session do', () => {
    expect(claudePermission('default')).toBe('ask');
    expect(claudePermission('acceptEdits')).toBe('edits');
    expect(claudePermission('plan')).toBe('plan');
    expect(claudePermission('auto')).toBe('auto');
    expect(claudePermission('dontAsk')).toBe('deny');
    expect(claudePermission('bypassPermissions')).toBe('bypass');
  });

  it('the name `--help` gives the default mode reads as the default mode', () => {
    expect(claudePermission('manual')).toBe('ask');
  });

  it('a mode it does not know is unknown, not a guess', () => {
    expect(claudePermission('yolo')).toBe('unknown');
  });

  it('a session keeps the newest mode, in its words and as a permission', () => {
    const facts = emptyFacts();
    const parser = new ClaudeParser(facts, emptyClaudeCarry(), new LedgerBuilder());
    parser.line(lineFromJson(userRecord('default')));
    expect([facts.permissionMode, facts.permission]).toEqual(['default', 'ask']);
    parser.line(lineFromJson(userRecord('bypassPermissions')));
    expect([facts.permissionMode, facts.permission]).toEqual(['bypassPermissions', 'bypass']);
  });
});
