/**
 * The ways a driven run ends without settling, the same for every agent drive runs in the lab:
 * cancelled mid-turn, stopped at its timeout, and the agent dying in the middle of the line that
 * would have settled its turn. Each agent's lab test registers them with what differs: how long its
 * CLI takes to reach the model, and which of its lines settles a turn.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { DriveError, Event, Outcome, Request, Run } from '../../src/drive/index.js';
import type { LabServer } from '../../src/test-support/lab/server.js';

export interface Endings {
  /** The agent's name, for the wrapper's file name. */
  name: string;
  bin: string;
  server: () => LabServer;
  root: () => string;
  start: (script: string, o?: { more?: Partial<Request> }) => { run: Run };
  /** A JavaScript condition on `line` (one line of the agent's stdout) true for the line that settles the turn. */
  settles: string;
  /** Whether the agent reads its prompt from stdin (the wrapper then passes stdin through). */
  promptOnStdin?: boolean;
  /** Long enough for the CLI to start and reach the held request (default 1.5 s). */
  timeoutMs?: number;
  /** What a run stopped at its timeout had learned (default: its turn had not settled). */
  timedOut?: (partial: Outcome) => void;
}

export function endingTests(o: Endings): void {
  it('cancel stops a run mid-turn and reaps its group', async () => {
    o.server().hold();
    const { run } = o.start('hold');
    await o.server().whenHeld();
    run.cancel();
    const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
    expect(error.failure.kind).toBe('cancelled');
    await run.closed;
    o.server().release();
  });

  it('a run past its timeout is stopped with what it had so far', async () => {
    o.server().hold();
    const { run } = o.start('hold', { more: { timeoutMs: o.timeoutMs ?? 1500 } });
    const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
    expect(error.failure.kind).toBe('timeout');
    if (error.failure.kind === 'timeout')
      (o.timedOut ?? ((p) => expect(p.stop).toEqual({ kind: 'unfinished' })))(error.failure.partial);
    await run.closed;
    o.server().release();
  });

  it('the agent dying mid-line is a failure, not an answer', async () => {
    // The real CLI behind a wrapper that cuts the line settling its turn in half and exits 1.
    const wrapper = join(o.root(), `${o.name}-dies`);
    writeFileSync(
      wrapper,
      `#!${process.execPath}
const { spawn } = require('child_process');
const child = spawn(${JSON.stringify(o.bin)}, process.argv.slice(2), { stdio: [${o.promptOnStdin ? "'inherit'" : "'ignore'"}, 'pipe', 'inherit'] });
let buf = '';
child.stdout.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (${o.settles}) {
      process.stdout.write(line.slice(0, 40), () => process.exit(1));
      return;
    }
    process.stdout.write(line + '\\n');
  }
});
`,
    );
    chmodSync(wrapper, 0o755);
    const { run } = o.start('text', { more: { bin: wrapper } });
    const events: Event[] = [];
    // The iteration ends with the run's error, as the outcome does.
    const ended = await (async () => {
      for await (const e of run) events.push(e);
    })().catch((e: unknown) => e);
    const error = (await run.outcome.catch((e: unknown) => e)) as DriveError;
    expect(ended).toBe(error);
    expect(error.failure.kind).toBe('failed');
    if (error.failure.kind === 'failed') {
      expect(error.failure.exitCode).toBe(1);
      expect(error.failure.partial.stop).toEqual({ kind: 'unfinished' });
      expect(error.failure.partial.unparsed).toBe(1);
    }
    expect(events.some((e) => e.kind === 'text')).toBe(true);
  });
}
