/**
 * # Room: alerts
 *
 * Owns: the table `network_alerts` (./repository.ts holds all its SQL): what an operator must be told
 * about a network until it is mended (a reconciliation mismatch, a hot wallet short of tokens or gas,
 * a final block that changed). Whoever finds the condition raises the alert and clears it when the
 * condition ends; the admin shows them (`GET /v1/withdrawal/networks`), and a network with
 * `chain_finality_violated` sends no payout (`payoutsHalted`).
 *
 * May touch: nothing of other rooms.
 */
export { clearAlert, listAlerts, payoutsHalted, raiseAlert, type AlertCode, type NetworkAlert } from './repository.js';
