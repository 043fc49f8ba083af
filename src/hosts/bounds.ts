/**
 * Every bound on reading another machine over ssh, each with the reason for its number. The remote
 * end is a program on a machine cctop does not control, reached through a network that can stall, so
 * what it sends is hostile input and how long it takes is not its own business: both are capped here.
 */

/**
 * The largest session document cctop reads from one host. A session is about 2 KiB of JSON (its
 * 48 hourly and 31 daily spend figures, per-model costs, tool tallies), so 64 MiB holds some thirty
 * thousand sessions, more than any one machine's history we have seen by a factor of ten. Past it the
 * host is reported as sending too much and none of its rows are shown: a cut document is not JSON.
 */
export const MAX_REMOTE_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** The most of ssh's stderr kept: its error is one or two lines; a chatty banner or MOTD is cut. */
export const MAX_SSH_STDERR_BYTES = 64 * 1024;

/**
 * How many hosts one cctop reads. Each is one ssh process (and one master connection) at a time;
 * 64 machines is a large fleet for one person's table, and past it a typo in a generated list (a
 * thousand lines) would start a thousand processes. The rest are named in a warning and not read.
 */
export const MAX_HOSTS = 64;

/** The longest `[user@]host[:path]` accepted; a longer one is a mistake, not a host. */
export const MAX_HOST_SPEC_CHARS = 1024;

/**
 * The unix socket path limit is 104 bytes on macOS (108 on Linux) with the closing NUL, and ssh
 * first binds the ControlPath with a 17-byte random suffix (`.` and 16 characters) before renaming
 * it: 104 - 1 - 17 = 86. A runtime directory too deep for that is not used for sockets; ssh then
 * connects afresh each time instead of over a master.
 */
export const MAX_CONTROL_PATH_BYTES = 104 - 1 - 17;

/** ssh's own `ConnectTimeout`: how long it waits for the TCP connection and the server's banner. */
export const CONNECT_TIMEOUT_S = 10;

/**
 * When cctop's own wait for a host is about as short as `CONNECT_TIMEOUT_S`, the two would expire
 * together and whichever a loaded machine ran first would name the failure ("no answer within N s"
 * or ssh's "cannot be reached"). cctop's wait is the one the person set, so ssh's is then put this
 * many seconds past it and only ever stops a connect cctop has already given up on.
 */
export const CONNECT_AFTER_WAIT_S = 3;

/**
 * How long a one-shot command (`--list`, `--json`, `doctor`) waits for each host's whole answer
 * (connect, log in, the remote cctop's run) before printing without it. A warm remote index answers
 * in well under a second; a cold one on a large history can take longer, and then keeps building
 * after this cctop gave up, so the next run is fast. `CCTOP_HOST_TIMEOUT` (seconds) changes it.
 */
export const HOST_WAIT_MS = 20_000;

/** The longest wait `CCTOP_HOST_TIMEOUT` may ask for: ten minutes is a stuck host, not a slow one. */
export const MAX_HOST_WAIT_MS = 600_000;

/**
 * How long an idle master connection stays up after its last use (ssh's ControlPersist). The live
 * table polls every 15 s, well inside it, so it logs in once; a one-shot command run again within
 * ten minutes reuses the connection instead of paying for a new handshake.
 */
export const CONTROL_PERSIST_S = 600;

/**
 * ssh's keep-alive: a probe every 5 s, and the connection is dropped after 2 unanswered ones, so a
 * host that vanishes mid-answer is noticed in about 10 s rather than at the TCP timeout (minutes).
 */
export const SERVER_ALIVE_INTERVAL_S = 5;
export const SERVER_ALIVE_COUNT_MAX = 2;
