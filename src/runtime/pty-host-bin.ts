/**
 * The pty host's entry point, started detached by `cctop run` (`pty-client.ts`). It prints nothing:
 * its stdio goes nowhere. A host that cannot start leaves `cctop run` to say so (it finds no socket).
 */
import { hostMain } from './pty-host.js';

hostMain(process.env).catch(() => process.exit(1));
