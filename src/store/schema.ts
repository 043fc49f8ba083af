/**
 * The team store's schema (`docs/team.md`), as numbered migrations. Each migration runs once, in its
 * own transaction, and records its number in `cctop_schema`; `cctop store migrate` applies the ones a
 * database lacks, and every push and every team dashboard checks the number first, so an older or a
 * newer schema is a plain error naming the command that fixes it, never a failed insert half-way.
 *
 * Who may do what is part of the schema, because the database enforces it, not cctop:
 * - `cctop_pusher`: developers' roles are members. Row-level security lets a member see and write
 *   only rows whose `developer` is the role it logged in as (`session_user`), so identity is the
 *   database's own authentication and a pusher cannot change another developer's rows. Not
 *   `current_user`: a member may `SET ROLE cctop_pusher`, and rows written as the shared role would
 *   belong to no developer (version 1 allowed that; version 2 closes it). `SET ROLE` cannot change
 *   `session_user`; only a superuser's `SET SESSION AUTHORIZATION` can. And no row may name one of
 *   the group roles as its developer at all (a check on each table).
 * - `cctop_reader`: the dashboard's role. Reads everything, writes nothing.
 * - `cctop_budgets`: may edit the team budgets (`cctop store budget set`).
 * The group roles are made by the first migration when missing (roles belong to the cluster, not to
 * one database), which is why migrate runs as the store's owner with CREATEROLE.
 *
 * Not here: connecting (`connect.ts`), applying the migrations (`migrate.ts`).
 */

/** The schema this cctop writes and reads. */
export const SCHEMA_VERSION = 3;

export interface Migration {
  version: number;
  /** What it changes, for `cctop store migrate` to say. */
  summary: string;
  sql: string;
}

/** The group roles the schema grants to (`docs/team.md` shows how developers join them). */
export const ROLES = {
  pusher: 'cctop_pusher',
  reader: 'cctop_reader',
  budgets: 'cctop_budgets',
} as const;

const groupRole = (name: string) => `
DO $roles$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '${name}') THEN
    CREATE ROLE ${name} NOLOGIN;
  END IF;
END $roles$;`;

/** Row-level security on a table of developers' rows: pushers see and write their own, readers all. */
const ownRows = (table: string) => `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
CREATE POLICY ${table}_own ON ${table} TO ${ROLES.pusher}
  USING (developer = current_user) WITH CHECK (developer = current_user);
CREATE POLICY ${table}_read ON ${table} FOR SELECT TO ${ROLES.reader} USING (true);
GRANT SELECT, INSERT, UPDATE ON ${table} TO ${ROLES.pusher};
GRANT SELECT ON ${table} TO ${ROLES.reader};`;

/** The group roles, as an SQL list: no row may be a group role's. */
const GROUP_ROLES = Object.values(ROLES)
  .map((r) => `'${r}'`)
  .join(', ');

/**
 * Version 2 on a table of developers' rows: the rows written as a group role (by `SET ROLE`) go, no
 * row may name one again, and a pusher's own rows are those of the role it logged in as.
 */
const realDeveloper = (table: string) => `
DELETE FROM ${table} WHERE developer IN (${GROUP_ROLES});
ALTER TABLE ${table} ADD CONSTRAINT ${table}_real_developer CHECK (developer NOT IN (${GROUP_ROLES}));
ALTER TABLE ${table} ALTER COLUMN developer SET DEFAULT session_user;
DROP POLICY ${table}_own ON ${table};
CREATE POLICY ${table}_own ON ${table} TO ${ROLES.pusher}
  USING (developer = session_user) WITH CHECK (developer = session_user);`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    summary: 'sessions, spend per day and model, pushers, team budgets; roles and row-level security',
    sql: `
${groupRole(ROLES.pusher)}
${groupRole(ROLES.reader)}
${groupRole(ROLES.budgets)}

-- One row per session per machine: the session document's facts, never its conversation text.
CREATE TABLE sessions (
  developer          text        NOT NULL DEFAULT current_user,
  host               text        NOT NULL,
  harness            text        NOT NULL,
  session_id         text        NOT NULL,
  project            text,
  title              text,
  model              text,
  state              text        NOT NULL,
  started_at         timestamptz,
  last_active_at     timestamptz,
  requests           integer,
  input_tokens       bigint,
  output_tokens      bigint,
  cache_read_tokens  bigint,
  cache_write_tokens bigint,
  reasoning_tokens   bigint,
  cost_usd           numeric(16, 6),
  unpriced_tokens    bigint      NOT NULL DEFAULT 0,
  facts              jsonb       NOT NULL DEFAULT '{}'::jsonb,
  pushed_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (developer, host, harness, session_id)
);
CREATE INDEX sessions_active ON sessions (last_active_at DESC);
-- The team dashboard's first question: who is working or waiting now. Only live rows are in it, so
-- it costs a push almost nothing; at a year of 1,000 developers it turns a whole-table read of
-- 838 ms into 6 ms (docs/scale.md).
CREATE INDEX sessions_live ON sessions (last_active_at DESC) WHERE state IN ('working', 'waiting');

-- Spend per local day (the pusher's report zone), harness, model and project, from the ledger.
CREATE TABLE spend_daily (
  developer          text        NOT NULL DEFAULT current_user,
  host               text        NOT NULL,
  harness            text        NOT NULL,
  day                date        NOT NULL,
  model              text        NOT NULL,
  project            text        NOT NULL,
  requests           integer     NOT NULL,
  input_tokens       bigint,
  output_tokens      bigint,
  cache_read_tokens  bigint,
  cache_write_tokens bigint,
  reasoning_tokens   bigint,
  cost_usd           numeric(16, 6),
  unpriced_tokens    bigint      NOT NULL DEFAULT 0,
  pushed_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (developer, host, harness, day, model, project)
);
CREATE INDEX spend_daily_day ON spend_daily (day);

-- Each machine's last successful push, so the dashboard can tell a quiet machine from a stale one.
CREATE TABLE pushers (
  developer      text        NOT NULL DEFAULT current_user,
  host           text        NOT NULL,
  cctop_version  text        NOT NULL,
  time_zone      text        NOT NULL,
  pushed_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (developer, host)
);

${ownRows('sessions')}
${ownRows('spend_daily')}
${ownRows('pushers')}

-- Team budgets: a limit over a calendar period for what it selects (null selects everything).
CREATE TABLE budgets (
  name        text          PRIMARY KEY,
  period      text          NOT NULL CHECK (period IN ('day', 'week', 'month')),
  usd         numeric(14, 2) NOT NULL CHECK (usd > 0),
  developer   text,
  project     text,
  harness     text,
  updated_by  text          NOT NULL DEFAULT current_user,
  updated_at  timestamptz   NOT NULL DEFAULT now()
);
GRANT SELECT ON budgets TO ${ROLES.pusher}, ${ROLES.reader}, ${ROLES.budgets};
GRANT INSERT, UPDATE, DELETE ON budgets TO ${ROLES.budgets};

CREATE TABLE cctop_schema (
  version    integer     PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON cctop_schema TO ${ROLES.pusher}, ${ROLES.reader}, ${ROLES.budgets};
`,
  },
  {
    version: 2,
    summary:
      'rows belong to the developer who logged in: SET ROLE to the shared pusher role no longer writes rows attributed to no developer, and rows it wrote are removed',
    sql: `
${realDeveloper('sessions')}
${realDeveloper('spend_daily')}
${realDeveloper('pushers')}
ALTER TABLE budgets ALTER COLUMN updated_by SET DEFAULT session_user;
`,
  },
  {
    version: 3,
    summary: "each developer's quota: the newest figure per harness, account and window from each machine",
    sql: `
-- One row per machine, harness, account and window: the figure its agent last wrote (cctop quota).
-- Stale is not stored: a figure is stale once its window has reset, which the reader asks of now().
CREATE TABLE quota (
  developer     text          NOT NULL DEFAULT session_user,
  host          text          NOT NULL,
  harness       text          NOT NULL,
  account       text          NOT NULL DEFAULT '',
  quota_window  text          NOT NULL,
  plan          text,
  used_percent  numeric(9, 3),
  resets_at     timestamptz,
  source        text          NOT NULL,
  fetched_at    timestamptz,
  pushed_at     timestamptz   NOT NULL DEFAULT now(),
  PRIMARY KEY (developer, host, harness, account, quota_window),
  CONSTRAINT quota_real_developer CHECK (developer NOT IN (${GROUP_ROLES}))
);
ALTER TABLE quota ENABLE ROW LEVEL SECURITY;
CREATE POLICY quota_own ON quota TO ${ROLES.pusher}
  USING (developer = session_user) WITH CHECK (developer = session_user);
CREATE POLICY quota_read ON quota FOR SELECT TO ${ROLES.reader} USING (true);
GRANT SELECT, INSERT, UPDATE ON quota TO ${ROLES.pusher};
GRANT SELECT ON quota TO ${ROLES.reader};
`,
  },
];
