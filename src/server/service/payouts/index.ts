/**
 * # Room: payouts
 *
 * Owns: the payout worker (./worker.ts): claiming pending withdrawals, sending them through the
 * chain adapter, and finishing them (`finishPayout(tx, …)`, which takes the caller's transaction).
 * No table of its own.
 *
 * May touch, in its own transactions: the withdrawals room's queue (`claimDue`, `markSucceeded`,
 * `markFailed`) and the ledger (`applyLedgerChange`). Phase 2 stores one signed transaction and
 * nonce per withdrawal before broadcast; that state belongs to this room (its own table and repository).
 */
export {
  claimWithdrawals,
  finishPayout,
  processPayouts,
  startPayoutWorker,
  type PayoutOutcome,
  type PayoutWorker,
  type PayoutWorkerOptions,
} from './worker.js';
