import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstallError } from '../../install/settings-file.js';
import { agentHooks } from '../agents.js';
import {
  installOpencodePlugin,
  opencodePluginPath,
  opencodePluginStatus,
  PLUGIN_MARK,
  removeOpencodePlugin,
} from './opencode.js';

const EVENTS = agentHooks('opencode').events;
const PROGRAM = ['/usr/bin/node', '/usr/lib/node_modules/cctop/dist/cli.js'];
const MOVED = ['/opt/gone/bin/cctop'];

let home: string;
let path: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cctop-opencode-'));
  path = opencodePluginPath({ HOME: home });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("cctop's OpenCode plugin", () => {
  it('goes where OpenCode 1.18 loads plugins from, and remove deletes it', () => {
    expect(path).toBe(join(home, '.config', 'opencode', 'plugins', 'cctop.js'));
    expect(opencodePluginPath({ HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') })).toBe(
      join(home, 'xdg', 'opencode', 'plugins', 'cctop.js'),
    );
    expect(installOpencodePlugin(path, PROGRAM, EVENTS).added).toEqual(EVENTS);
    expect(readFileSync(path, 'utf8').startsWith(PLUGIN_MARK)).toBe(true);
    expect(opencodePluginStatus(path, PROGRAM, EVENTS).current).toEqual(EVENTS);
    expect(removeOpencodePlugin(path, EVENTS).removed).toEqual(EVENTS);
    expect(existsSync(path)).toBe(false);
  });

  it('writes nothing on a second install, and rewrites a plugin that runs a moved cctop', () => {
    installOpencodePlugin(path, MOVED, EVENTS);
    expect(opencodePluginStatus(path, PROGRAM, EVENTS)).toMatchObject({ stale: EVENTS, gone: MOVED });
    expect(installOpencodePlugin(path, PROGRAM, EVENTS).repointed).toEqual(EVENTS);
    expect(installOpencodePlugin(path, PROGRAM, EVENTS)).toMatchObject({
      wrote: false,
      added: [],
      repointed: [],
    });
  });

  it("never overwrites or deletes a file of the user's by that name", () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'export const Mine = async () => ({});\n');
    expect(() => installOpencodePlugin(path, PROGRAM, EVENTS)).toThrow(InstallError);
    expect(removeOpencodePlugin(path, EVENTS)).toMatchObject({ wrote: false, removed: [] });
    expect(readFileSync(path, 'utf8')).toBe('export const Mine = async () => ({});\n');
  });

  it('runs cctop with a payload on stdin for the events that tell state, and for nothing else', async () => {
    // A stand-in for cctop that records its arguments and stdin, one line a run.
    const record = join(home, 'runs.jsonl');
    const recorder = join(home, 'recorder.mjs');
    writeFileSync(
      recorder,
      `import { appendFileSync } from 'node:fs';
let s = '';
process.stdin.on('data', (d) => { s += d; });
process.stdin.on('end', () => appendFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), stdin: JSON.parse(s) }) + '\\n'));
`,
    );
    installOpencodePlugin(path, [process.execPath, recorder], EVENTS);
    const mod = (await import(pathToFileURL(path).href)) as Record<
      string,
      (ctx: unknown) => Promise<PluginHooks>
    >;
    const hooks = await Object.values(mod)[0]!({ directory: '/home/me/app' });
    // As OpenCode 1.18.33 publishes them on its bus, trimmed.
    await hooks.event({
      event: { type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'busy' } } },
    });
    await hooks.event({ event: { type: 'message.part.delta', properties: { sessionID: 'ses_1' } } });
    await hooks.event({
      event: {
        type: 'permission.asked',
        properties: { id: 'per_1', sessionID: 'ses_1', permission: 'bash' },
      },
    });
    await hooks['tool.execute.before']({ tool: 'bash', sessionID: 'ses_1', callID: 'call_1' }, { args: {} });
    // Whatever OpenCode hands it, the plugin does not throw.
    await hooks.event(undefined);
    await hooks.event({ event: null });
    await hooks['tool.execute.after'](undefined, undefined);
    await hooks.event({
      event: { type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'idle' } } },
    });
    await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
    // Runs finish in any order; each carries the time OpenCode sent its event, strictly increasing,
    // so in that order they are the events as sent. A repeated status is sent once.
    const runs = (await linesOf(record, 6)).sort(
      (a, b) => (a.stdin.event_at_ms as number) - (b.stdin.event_at_ms as number),
    );
    expect(new Set(runs.map((r) => r.stdin.event_at_ms)).size).toBe(6);
    expect(runs.map((r) => r.argv.join(' '))).toEqual([
      'hook opencode session.status',
      'hook opencode permission.asked',
      'hook opencode tool.execute.before',
      'hook opencode tool.execute.after',
      'hook opencode session.status',
      'hook opencode session.idle',
    ]);
    const status = runs.find((r) => r.argv[2] === 'session.status')!;
    expect(status.stdin).toEqual({
      session_id: 'ses_1',
      cwd: '/home/me/app',
      notification_type: 'busy',
      event_at_ms: expect.any(Number),
    });
    const tool = runs.find((r) => r.argv[2] === 'tool.execute.before')!;
    expect(tool.stdin).toEqual({
      session_id: 'ses_1',
      cwd: '/home/me/app',
      tool_name: 'bash',
      event_at_ms: expect.any(Number),
    });
  });

  it('carries on when cctop cannot be started', async () => {
    installOpencodePlugin(path, [join(home, 'no-such-cctop')], EVENTS);
    const mod = (await import(pathToFileURL(path).href)) as Record<
      string,
      (ctx: unknown) => Promise<PluginHooks>
    >;
    const hooks = await Object.values(mod)[0]!({});
    await expect(
      hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } }),
    ).resolves.toBeUndefined();
  });
});

interface PluginHooks {
  event(input: unknown): Promise<void>;
  'tool.execute.before'(input: unknown, output: unknown): Promise<void>;
  'tool.execute.after'(input: unknown, output: unknown): Promise<void>;
}

/** The file's lines once it has `n` of them (the runs are started, never waited for). */
async function linesOf(
  file: string,
  n: number,
): Promise<{ argv: string[]; stdin: Record<string, unknown> }[]> {
  for (let i = 0; i < 500; i++) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    if (lines.length >= n) return lines.map((l) => JSON.parse(l));
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${file} never had ${n} lines`);
}
