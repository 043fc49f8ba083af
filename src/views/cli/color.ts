/**
 * Colour only where it helps: on a terminal, unless `NO_COLOR` is set (or `FORCE_COLOR` asks for it).
 */
import type { Env } from '../../providers/types.js';

export interface Paint {
  enabled: boolean;
  green(s: string): string;
  amber(s: string): string;
  red(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap = (on: boolean, open: string, close: string) => (s: string) =>
  on ? `\u001b[${open}m${s}\u001b[${close}m` : s;

export function paint(isTty: boolean, env: Env): Paint {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const enabled = forced || (isTty && env.NO_COLOR === undefined && env.TERM !== 'dumb');
  return {
    enabled,
    green: wrap(enabled, '32', '39'),
    amber: wrap(enabled, '33', '39'),
    red: wrap(enabled, '31', '39'),
    dim: wrap(enabled, '2', '22'),
    bold: wrap(enabled, '1', '22'),
  };
}

/** No colour at all: for text that is styled as a whole (the selected row in inverse video). */
export const PLAIN: Paint = paint(false, {});
