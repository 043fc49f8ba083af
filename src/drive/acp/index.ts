/**
 * ACP, the Agent Client Protocol: any agent that speaks it runs through drive by name and command
 * (`Request.acp`). What is not exported here is the folder's own business.
 */
export { ACP_PROTOCOL_VERSION } from './handshake.js';
export { ACP_HANDSHAKE_MS, type AcpAgent, checkAcp, type Split, splitCommand } from './request.js';
export { acpSpec } from './spec.js';
