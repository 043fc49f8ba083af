/**
 * `cctop exec` with ACP agents: one given on the command line (`--acp 'COMMAND'`), one named in the
 * config file (`[acp.NAME]`, run as `cctop exec NAME`), and `--all` running the configured ones
 * beside the installed CLIs. The agent is the fake ACP agent (`src/drive/test-support/fake-acp.ts`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acpRecord, writeFakeAcp } from '../../src/drive/test-support/fake-acp.js';
import { FakeBin, type Step } from '../../src/drive/test-support/fake-agent.js';
import { EXIT, execCommand } from '../../src/views/cli/exec.js';
import type { Io } from '../../src/views/cli/main.js';

let bin: FakeBin;
let fake: string;
beforeEach(() => {
  bin = new FakeBin();
  fake = writeFakeAcp(bin.dir);
});
afterEach(() => bin.cleanup());

/** A config file naming the fake as an ACP agent. */
function configure(toml: string): Record<string, string> {
  const path = join(bin.dir, 'config.toml');
  writeFileSync(path, toml);
  return { CCTOP_CONFIG: path };
}

async function exec(args: string[], extraEnv: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (s) => out.push(Buffer.from(s).toString()),
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: bin.env({ XDG_STATE_HOME: join(bin.dir, 'state'), PATH: bin.dir, ...extraEnv }),
  };
  const code = await execCommand(['-C', bin.dir, ...args], io);
  return { code, out: out.join('\n'), err: err.join('\n'), lines: out };
}

describe('cctop exec with ACP agents', () => {
  it("--acp 'COMMAND' runs the command, split like a shell would, and names the run after it", async () => {
    const r = await exec(['--acp', `'${fake}' well`, '--permission', 'default', 'say pong']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.lines).toEqual(['pong from the fake']);
    expect(r.err).toContain('fake-acp · completed · session fake-session-1');
    expect(acpRecord(bin.dir).argv).toEqual(['well']);
  });

  it('--acp with a command it cannot split, or beside --all, is a usage error', async () => {
    expect((await exec(['--acp', "'unclosed", 'hi'])).code).toBe(EXIT.usage);
    const r = await exec(['--all', '--acp', fake, 'hi']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('--acp names one');
  });

  it('an [acp.NAME] table in the config file is run as cctop exec NAME', async () => {
    const env = configure(`[acp.fakey]\ncommand = "${fake} well"\nenv = ["FAKEY_*"]\n`);
    const r = await exec(['fakey', '--permission', 'default', '--json', 'say pong'], {
      ...env,
      FAKEY_TOKEN: 't',
    });
    expect(r.code).toBe(EXIT.ok);
    const last = JSON.parse(r.lines.at(-1)!) as {
      kind: string;
      outcome: { agent: string; acp: { name: string } };
    };
    expect(last.outcome.agent).toBe('acp');
    expect(last.outcome.acp.name).toBe('fakey');
    expect(acpRecord(bin.dir).env.FAKEY_TOKEN).toBe('t');
  });

  it('an unknown name lists the agents it could have meant, ACP ones included', async () => {
    const env = configure(`[acp.fakey]\ncommand = ["${fake}", "well"]\n`);
    const r = await exec(['fakee', 'hi'], env);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('unknown agent "fakee"');
    expect(r.err).toContain('fakey');
  });

  it('--all runs the configured ACP agents beside the installed CLIs, in one table', async () => {
    const codex: Step[] = [
      { out: { type: 'thread.started', thread_id: 'th-1' } },
      { out: { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'codex says pong' } } },
      {
        out: {
          type: 'turn.completed',
          usage: { input_tokens: 12, cached_input_tokens: 9, output_tokens: 3 },
        },
      },
    ];
    bin.add('codex', codex);
    const env = configure(
      `[acp.fakey]\ncommand = "${fake} usage"\n\n[acp.missing]\ncommand = "/nonexistent/acp-agent"\n`,
    );
    const r = await exec(['--all', 'say pong'], env);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('── fakey · completed');
    expect(r.out).toMatch(/^fakey\s+completed\s+\d+\.\d s\s+1\.5k\s+\$0\.25\b/m);
    expect(r.out).toMatch(/^codex\s+completed\s/m);
    // An ACP agent whose executable is not there is not installed: not run, not an error.
    expect(r.out).not.toContain('missing');
  });
});
