/**
 * The status line's public face: what `cctop statusline` prints and how it gathers it, the digest the
 * background refresh keeps, the single-refresh lock, and Claude Code's `statusLine` entry for the
 * installer. `views/cli/statusline.ts` is the command.
 *
 * The command itself imports the modules it needs one by one, not this file: it runs after every
 * message Claude Code sends, and loading the refresh (and through it the index) for nothing would
 * cost more than everything it does.
 */
export { startBackgroundRefresh } from './background.js';
export { type Digest, type DigestSession, readDigest } from './digest.js';
export { type Gathered, gather, STALE_INDEX_MS } from './gather.js';
export { type Limits, type LimitWindow, parseInput, readInput, type StatuslineInput } from './input.js';
export { ourCommand, runsCctopStatusline, statuslineEntry } from './install.js';
export { DEFAULT_FORMAT, PARTS, type Part, parseFormat, type StatusFigures, statusLine } from './line.js';
export { digestOf, refreshDigest, writeDigest } from './refresh.js';
export { LOCK_STALE_MS, release, startRefreshOnce } from './refresh-lock.js';
