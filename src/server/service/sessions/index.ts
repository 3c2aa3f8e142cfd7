/**
 * # Room: sessions
 *
 * Owns: the tables `checkout_sessions` and `chain_transfers` (./repository.ts holds their SQL, but opening a session, ./opening-repository.ts, and the
 * merchant's and refunds' reads, ./record-repository.ts),
 * the whole keyless `/v1/checkout/*` API (./routes.ts: a link's public view and visits, sessions
 * started by ./start.ts,
 * their SSE stream, simulated payments), quotes (with the rates room's book), expiry, and a session's
 * statuses (the `confirming` status belongs here; money in sets it).
 *
 * May touch, in its own transactions: the ledger (`applyLedgerChange`), the links room (its public
 * views through `getLinkBySlug`, `toPublicLink`, `linkState`, `recordVisit`; its columns only through
 * `linkSql`), the orders room (an order's public view and sessions through `readOrder`,
 * `toPublicOrder`, `lockOrder`; `expireDueOrders` in the expiry sweep; its columns only through
 * `orderSql`), domain events (`recordEvent`: `session.changed`, and the session webhooks through
 * `announceSession`), and the money-in room (../money-in/: `settleIncomingTransfer` for a simulated
 * payment, `closeOrderSessions`).
 *
 * Money in (../money-in/) settles and finalizes sessions: its settlement and its scanner lock, settle,
 * close and reverse them through ./settling.ts (`lockSessionForSettlement`, `updateSettlement`,
 * `insertTransfer`, `markSessionFinal`, …), whose SQL stays here. It imports that file, never this
 * index, whose routes and simulator settle through money in.
 *
 * The refunds room reads what a session brought in (`sessionFunds`) and resolves one (`markSessionResolved`)
 * under the locks settlement takes (`orderOfSession`, `lockSessionForSettlement`); a session's read embeds
 * what was refunded of it through that room's `refundedOfSessionSql`.
 *
 * The merchant's view: the keyed `GET /v1/checkout-session[/{id}]` (./merchant-routes.ts,
 * ./records.ts), the only place a session's customer details, reference and metadata are read, and the
 * object of the `checkout.session.*` and `payment.late` webhooks. It and the keyless view write a
 * session's quote with one mapping (./wire.ts). Retention of never-paid sessions:
 * ./retention.ts.
 */
export { expireDueSessions, expireIfDue, getSession, simulatePayment, startExpirySweep } from './domain.js';
export { startOrderSession, startSession } from './start.js';
export { announceSession, getSessionRecord, listSessionRecords, readSessionRecord, toSessionRecord, type SessionEventType } from './records.js';
export { checkoutSessionOperations } from './merchant-routes.js';
export { deleteNeverPaidSessions } from './retention.js';
export { checkoutOperations } from './routes.js';
export { depositAddressOfSql, lockSessionForSettlement, orderOfSession } from './repository.js';
export { markSessionResolved, sessionFunds, type SessionFunds } from './record-repository.js';
