/**
 * `cctop serve`: the command, and the server for callers that start one themselves.
 */
export { serveCommand } from './command.js';
export { type RunningServer, ServeError, type ServeOptions, startServer } from './server.js';
