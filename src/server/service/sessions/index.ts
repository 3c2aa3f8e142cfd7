/**
 * # Room: sessions
 *
 * Owns: the tables `checkout_sessions` and `chain_transfers` (./repository.ts holds all their SQL),
 * `incoming_transfers` and `chain_cursors` (./incoming-repository.ts: a real chain's scanner, ./scanner.ts),
 * the whole keyless `/v1/checkout/*` API (./routes.ts: a link's public view and visits, sessions,
 * their SSE stream, simulated payments), quotes (./rates.ts), expiry, and settlement
 * (./settlement.ts: `settleTransfer(tx, …)` takes the caller's transaction).
 *
 * May touch, in its own transactions: the ledger (`applyLedgerChange`), the links room (`countPayment`
 * when a transfer settles a session; its public views through `getLinkBySlug`, `toPublicLink`,
 * `linkState`, `recordVisit`; its columns only through `linkSql`) and domain events (`recordEvent`:
 * `session.changed`). The chain scanner settles through `settleTransfer` too; the keyed
 * `GET /v1/checkout-session` (DESIGN §8) belongs here as well.
 */
export { expireDueSessions, getSession, simulatePayment, startExpirySweep, startSession, QUOTE_TTL_MS } from './domain.js';
export { settleIncomingTransfer, settleTransfer, type SettleOptions } from './settlement.js';
export { createRateTable, SANDBOX_RATES_PER_USD, type RateTable } from './rates.js';
export { checkoutRoutes } from './routes.js';
export { createChainScanner, creditableAmount, startChainScanner, type ChainScanner, type ChainScannerOptions } from './scanner.js';
export { depositIndexesWithTransfers } from './incoming-repository.js';
