/**
 * No agent outlives the program that started it: a program using the built `cctop/drive` (dist/,
 * which `npm test` builds first) is ended by a signal or exits while a fake agent and the
 * grandchild it started are running; afterwards neither runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, exists, FakeBin } from '../../src/drive/test-support/fake-agent.js';
import { REPO } from '../../src/test-support/corpus.js';
import { unless, WHY } from '../../src/test-support/skips.js';

const DRIVE = join(REPO, 'dist', 'drive', 'index.js');
const BUILT = existsSync(DRIVE);
if (!BUILT) console.warn(`${DRIVE} is not built (npm run build); the process-cleanup tests are skipped`);

let bin: FakeBin;
beforeEach(() => {
  bin = new FakeBin();
  // The grandchild first: once the program sees `started`, both processes exist.
  bin.add('claude', [
    { grandchild: true },
    { out: { type: 'system', subtype: 'init', session_id: 's', model: 'm' } },
    { hang: true },
  ]);
});
afterEach(() => bin.cleanup());

const ended = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );

/** A program that starts a run, says `ready` once the agent is live, then does `then`. */
function program(then: string): { child: ChildProcess; exit: ReturnType<typeof ended> } {
  const script = join(bin.dir, 'program.mjs');
  writeFileSync(
    script,
    `import { stream } from ${JSON.stringify(pathToFileURL(DRIVE).href)};
const r = stream({ agent: 'claude', prompt: 'x', cwd: ${JSON.stringify(bin.dir)}, parentEnv: ${JSON.stringify(bin.env())} });
r.outcome.then((o) => console.log('outcome ' + o.stop.kind), (e) => console.log('error ' + e.failure.kind));
try {
  for await (const e of r) {
    if (e.kind === 'started') {
      console.log('ready');
      ${then}
    }
  }
} catch (e) {
  console.log('stopped ' + e.failure.kind);
}
`,
  );
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { child, exit: ended(child) };
}

async function untilReady(child: ChildProcess): Promise<{ output: () => string }> {
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  await eventually(() => out.includes('ready'), 10_000);
  return { output: () => out };
}

async function agentsGone(): Promise<boolean> {
  const rec = bin.record('claude');
  return eventually(() => !exists(rec.pid) && rec.grandchild !== undefined && !exists(rec.grandchild), 6000);
}

describe.skipIf(!BUILT)(`when the program using drive ends${unless(BUILT, WHY.built)}`, () => {
  it('on SIGTERM, the agents go and the program then dies of the signal', async () => {
    const { child, exit } = program('');
    await untilReady(child);
    child.kill('SIGTERM');
    expect((await exit).signal).toBe('SIGTERM');
    expect(await agentsGone()).toBe(true);
  });

  it('on SIGINT with a handler of its own, the agents go and the program decides', async () => {
    const { child, exit } = program(`process.on('SIGINT', () => setTimeout(() => process.exit(7), 300));`);
    const { output } = await untilReady(child);
    child.kill('SIGINT');
    expect((await exit).code).toBe(7);
    expect(output()).toContain('error cancelled');
    expect(await agentsGone()).toBe(true);
  });

  it('on a normal exit mid-run, the agents are killed', async () => {
    const { child, exit } = program('process.exit(0);');
    await untilReady(child);
    expect((await exit).code).toBe(0);
    expect(await agentsGone()).toBe(true);
  });
});
