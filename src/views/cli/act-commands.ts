/**
 * The commands that act on a session through its terminal, as `main.ts` hands them over: `send`,
 * `stop`, `resume`, `wait` (`act-terminal.ts`), `run` and `attach` (`run-pty.ts`). Each parses its own
 * line here; `run` parses nothing after the agent, whose arguments are its own.
 *
 * Not here: what each does.
 */
import type { ActCommand } from './act-names.js';
import { commandHelp } from './help.js';
import type { Io } from './main.js';
import { COMMON_FLAGS, commonOptions, parse } from './options.js';

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;
const ACT_FLAGS = { ...COMMON_FLAGS, ...HELP_FLAG };
const WAIT_FLAGS = { ...ACT_FLAGS, until: { type: 'string' }, timeout: { type: 'string' } } as const;

function said(io: Io, text: string): number {
  io.out(text);
  return 0;
}

export async function actCommand(command: ActCommand, args: string[], io: Io): Promise<number> {
  if (command === 'run') {
    // Only a help flag before the agent is cctop's: every word after the agent is the agent's.
    if (args[0] === '--help' || args[0] === '-h') return said(io, commandHelp(command));
    return (await import('./run-pty.js')).runCommand(io, args);
  }
  if (command === 'attach') {
    if (args.includes('--help') || args.includes('-h')) return said(io, commandHelp(command));
    return (await import('./run-pty.js')).attachCommand(io, args);
  }
  const { values, positionals } = parse(args, command === 'wait' ? WAIT_FLAGS : ACT_FLAGS, command);
  if (values.help) return said(io, commandHelp(command));
  const act = await import('./act-terminal.js');
  // wait's --until names a state, not the last day of the common options.
  const o = commonOptions(command === 'wait' ? { ...values, until: undefined } : values);
  switch (command) {
    case 'send':
      return act.sendCommand(io, positionals, o);
    case 'stop':
      return act.stopCommand(io, positionals, o);
    case 'resume':
      return act.resumeCommand(io, positionals, o);
    case 'wait': {
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      return act.waitCommand(io, positionals, o, text(values.until), text(values.timeout));
    }
  }
}
