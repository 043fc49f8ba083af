/**
 * How a command that runs until stopped (`serve`, `watch`) learns it should stop: SIGINT or SIGTERM
 * once asks it to close cleanly; a second Ctrl-C while it closes ends the process at once.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', () => process.exit(130));
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
