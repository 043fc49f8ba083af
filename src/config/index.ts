/**
 * The config file and what it sets: `loadConfig` reads and checks it (`docs/config.md`), `budgetStates`
 * says where each budget stands, `newCrossings` which of them crossed a level not yet notified.
 */
export {
  type BudgetState,
  budgetStates,
  type DayRange,
  inProject,
  type Level,
  levelOf,
  NEAR_SHARE,
  OVER_SHARE,
  periodDays,
  type SpentOf,
} from './budgets.js';
export { loadConfig, MAX_CONFIG_BYTES, parseConfig, zoneFor } from './config.js';
export { CROSSINGS_FILE, crossingsPath, newCrossings } from './crossings.js';
export { configPath } from './path.js';
export { MAX_BUDGETS } from './read.js';
export type {
  Alerts,
  Budget,
  Config,
  LoadedConfig,
  Notify,
  NotifyFormat,
  Period,
  Reports,
  StartOfWeek,
} from './types.js';
export { defaultConfig, NOTIFY_FORMATS, PERIODS, WEEK_STARTS } from './types.js';
export { dashboardUrl, MAX_URL_CHARS, shownUrl, webhookUrl } from './urls.js';
