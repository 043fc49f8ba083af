/** The commands that act on a session through its terminal, told apart without loading them. */
import type { CommandName } from './command-line.js';

export type ActCommand = Extract<CommandName, 'run' | 'attach' | 'send' | 'stop' | 'resume' | 'wait'>;

const ACT: ReadonlySet<string> = new Set<ActCommand>(['run', 'attach', 'send', 'stop', 'resume', 'wait']);

export const isActCommand = (c: CommandName): c is ActCommand => ACT.has(c);
