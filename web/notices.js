// @ts-check
// What the event stream says beside the session document: where the budgets stand, and each alert
// as it fires (live.js receives and checks them). The dashboard's budget card and the notifications
// listen here, so neither needs the page's wiring to hand them on.

/** @import { AlertFrame, BudgetLine } from './shared-delta.js' */

/** @type {BudgetLine[]} where the budgets stood at the last `budgets` event */
let budgets = [];
/** @type {Set<(budgets: BudgetLine[]) => void>} */
const budgetListeners = new Set();
/** @type {Set<(alert: AlertFrame) => void>} */
const alertListeners = new Set();

/** Where each budget of the server's config stands, as last sent (empty: none is set, or none heard yet). */
export const budgetsNow = () => budgets;

/**
 * Hear where the budgets stand whenever they move.
 * @param {(budgets: BudgetLine[]) => void} listener
 */
export function onBudgets(listener) {
  budgetListeners.add(listener);
}

/**
 * Hear each alert as it fires (a budget crossing 80% or 100%, a stall, a burn, an error loop).
 * @param {(alert: AlertFrame) => void} listener
 */
export function onAlert(listener) {
  alertListeners.add(listener);
}

/** @param {BudgetLine[]} next */
export function setBudgets(next) {
  budgets = next;
  for (const l of budgetListeners) l(budgets);
}

/** @param {AlertFrame} alert */
export function announce(alert) {
  for (const l of alertListeners) l(alert);
}
