/** `[acp.NAME]` tables: ACP agents named in the config file for `cctop exec`. */
import { describe, expect, it } from 'vitest';
import { MAX_ACP_AGENTS } from './acp.js';
import { parseConfig } from './config.js';

const parsed = (text: string) => parseConfig(text, '/cfg/config.toml', { HOME: '/home/me' });

describe('ACP agents in the config file', () => {
  it('reads a command written as one string, split like a shell would, or as a list of words', () => {
    const c = parsed(`[acp.goose]
command = "goose acp --profile 'my work'"
env = ["GOOSE_*", "OPENAI_API_KEY"]

[acp.gem]
command = ["gemini", "--acp"]
mode = "autoEdit"
`);
    expect(c.warnings).toEqual([]);
    expect(c.config.acp).toEqual([
      {
        name: 'goose',
        command: ['goose', 'acp', '--profile', 'my work'],
        env: ['GOOSE_*', 'OPENAI_API_KEY'],
      },
      { name: 'gem', command: ['gemini', '--acp'], mode: 'autoEdit' },
    ]);
  });

  it('leaves out a wrong table with a warning naming it and its line, and keeps the rest', () => {
    const c = parsed(`[acp.claude]
command = "claude-code-acp"

[acp.nocommand]
mode = "x"

[acp.quote]
command = "goose 'acp"

[acp.badenv]
command = "x"
env = ["NOT A NAME"]

[acp.ok]
command = "ok-acp"
colour = "blue"
`);
    expect(c.config.acp.map((a) => a.name)).toEqual(['ok']);
    expect(c.warnings.join('\n')).toMatch(/line 1: \[acp\.claude\] claude is a built-in agent/);
    expect(c.warnings.join('\n')).toMatch(/line 4: \[acp\.nocommand\] command is missing/);
    expect(c.warnings.join('\n')).toMatch(
      /\[acp\.quote\] command = "goose 'acp": a single quote is not closed/,
    );
    expect(c.warnings.join('\n')).toMatch(/\[acp\.badenv\] acp\.env "NOT A NAME" is not a variable name/);
    expect(c.warnings.join('\n')).toMatch(/key "acp\.colour" is not a cctop setting/);
  });

  it(`keeps at most ${MAX_ACP_AGENTS}, saying where it stopped`, () => {
    const tables = Array.from({ length: MAX_ACP_AGENTS + 2 }, (_, i) => `[acp.a${i}]\ncommand = "x"\n`).join(
      '\n',
    );
    const c = parsed(tables);
    expect(c.config.acp).toHaveLength(MAX_ACP_AGENTS);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toContain(`more than ${MAX_ACP_AGENTS} ACP agents: a${MAX_ACP_AGENTS}`);
  });
});
