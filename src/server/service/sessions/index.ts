/**
 * # Room: sessions
 *
 * Owns: the tables `checkout_sessions` and `chain_transfers` (./repository.ts holds all their SQL),
 * `incoming_transfers`, `chain_cursors` and `chain_networks` (./incoming-repository.ts: a real chain's
 * scanner, ./scanner.ts, finality, ./finality.ts, and what a reorganization past finality took back,
 * ./resume.ts),
 * the whole keyless `/v1/checkout/*` API (./routes.ts: a link's public view and visits, sessions,
 * their SSE stream, simulated payments), quotes (with the rates room's book), expiry, and settlement
 * (./settlement.ts: `settleTransfer(tx, …)` takes the caller's transaction).
 *
 * May touch, in its own transactions: the ledger (`applyLedgerChange`), the links room (`countPayment`
 * when a transfer settles a session; its public views through `getLinkBySlug`, `toPublicLink`,
 * `linkState`, `recordVisit`; its columns only through `linkSql`), the orders room (an order's public
 * view and sessions through `readOrder`, `toPublicOrder`, `lockOrder`; `lockOrderForPayment` and
 * `markOrderPaid` when a transfer settles an order's session, which pays the order once and closes its
 * other sessions; `expireDueOrders` in the expiry sweep; its columns only through `orderSql`) and
 * domain events (`recordEvent`:
 * `session.changed`, and the session webhooks through `announceSession`); the alerts room
 * (`raiseAlert`, `payoutsHalted`: a final block that changed halts payouts on its network). The chain scanner
 * (./scanner.ts) settles through `settleTransfer` too, at N confirmations; the `confirming` status
 * belongs here.
 *
 * The refunds room reads what a session brought in (`sessionFunds`) and resolves one (`markSessionResolved`)
 * under the locks settlement takes (`orderOfSession`, `lockSessionForSettlement`); a session's read embeds
 * what was refunded of it through that room's `refundedOfSessionSql`.
 *
 * Reconciliation (../reconciliation/) reads what the books say each deposit address received
 * (./deposit-books.ts) and credits a transfer the scanner missed through the scanner's own steps
 * (`creditFound` of `createChainScanner`).
 *
 * The merchant's view: the keyed `GET /v1/checkout-session[/{id}]` (./merchant-routes.ts,
 * ./records.ts), the only place a session's customer details, reference and metadata are read, and the
 * object of the `checkout.session.*` and `payment.late` webhooks. Retention of never-paid sessions:
 * ./retention.ts.
 */
export { expireDueSessions, expireIfDue, getSession, simulatePayment, startExpirySweep, startOrderSession, startSession } from './domain.js';
export { announceSession, getSessionRecord, listSessionRecords, readSessionRecord, toSessionRecord, type SessionEventType } from './records.js';
export { checkoutSessionOperations } from './merchant-routes.js';
export { deleteNeverPaidSessions } from './retention.js';
export { closeOrderSessions, settleIncomingTransfer, settleTransfer, type SettleOptions } from './settlement.js';
export { checkoutOperations } from './routes.js';
export {
  ChainIdentityError,
  createChainScanner,
  creditableAmount,
  recordObservedTransfers,
  startChainScanner,
  verifyChainIdentity,
  type ChainScanner,
  type ChainScannerOptions,
} from './scanner.js';
export { recordCurrentCheckpoint, ResumeError, reverseVanishedCredits, type ReversalReport } from './resume.js';
export { finalizeCredit, reverseCredit } from './finality.js';
export { depositIndexesWithTransfers } from './incoming-repository.js';
export { depositAddressPage, depositSessionsOf, receivedTransfers, receivedUpTo, type DepositAddressRecord, type ReceivedTransfer } from './deposit-books.js';
export { depositAddressOfSql, lockSessionForSettlement, markSessionResolved, orderOfSession, sessionFunds, type SessionFunds } from './repository.js';
