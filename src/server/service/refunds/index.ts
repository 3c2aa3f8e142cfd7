/**
 * # Room: refunds
 *
 * When money goes wrong: a merchant gives a payment back (all of it, part of it, or what was paid too
 * much), and accepts an underpaid or late payment as paid.
 *
 * Owns: the table `refunds` (./repository.ts holds all its SQL; ./refunded-sql.ts the one expression
 * other rooms embed: what was refunded of a session or an order), `/v1/refund*` (./routes.ts: create with
 * `Idempotency-Key`, list by status, session or order, get, cancel), the customer's keyless claim
 * `/v1/checkout/refunds/{id}*` (./claim.ts, behind the claim token of ./claim-token.ts), and
 * `POST /v1/checkout-session/{id}/resolve` (./resolve.ts). The hosted claim page
 * (`{paylink_url}/refund/<id>`) is served with the other hosted pages (../hosted-page.ts).
 *
 * May touch, in its own transactions: the sessions room (`lockSessionForSettlement`, `sessionFunds`,
 * `depositAddressOfSql`, `readSessionRecord`; resolving: `orderOfSession`, `markSessionResolved`,
 * `closeOrderSessions`, `announceSession`), the orders room (`readOrder` for a claim's title; resolving:
 * `lockOrderForPayment`, `markOrderResolved`), the links room (`countPayment` of a resolved link session),
 * the ledger (`applyCoveredLedgerChange`: `refund_reserve` only when `available` covers it;
 * `applyLedgerChange`: `refund_release` of a cancelled refund), the withdrawals room (a refund's payout is a
 * withdrawal: `insertRefundPayout`, read through `payoutSql`), the keys room's `integratorSql` (the
 * merchant's name on the claim page), idempotency (`runIdempotent`) and domain events (`recordEvent(s)`:
 * `refund.created`, `withdrawals.due`). The payouts room finishes a refund's payout in its own
 * transaction: it writes `refund_payout` or `refund_release` and calls `finishRefundPayouts` here
 * (`refund.succeeded`, `refund.failed`).
 *
 * Rules: a refund never gives back more than its session brought in on the network it was paid on, less
 * its refunds not failed or cancelled (the session's row lock orders every refund of it); its amount
 * leaves `available` when it is made; its claim token is kept only hashed (and sealed under the API key
 * that made it), compared in constant time and never logged; an address is set once.
 */
export { finishRefundPayouts, toRefund } from './domain.js';
export { refundOperations } from './routes.js';
