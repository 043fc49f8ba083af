/**
 * `cctop serve --store`: the team dashboard, read from the team store; the command, and the server for
 * callers that start one themselves.
 */
export { TEAM_SERVE_HELP, teamServeCommand } from './command.js';
export { type RunningTeamServer, startTeamServer, TeamServeError, type TeamServeOptions } from './server.js';
