/**
 * # Room: payouts
 *
 * Owns: the payout worker (./worker.ts): claiming pending withdrawals and sending them through the
 * chain adapter; finishing them (./finish.ts: `finishPayout(tx, …)`, which takes the caller's
 * transaction, shared by the worker and the stored transactions);
 * on a real chain, the stored signed transactions (./stored.ts) and the tables `payout_nonces` and
 * `payout_transactions` (./repository.ts holds all their SQL). `paylink sweep` takes its gas
 * top-ups' nonces from the same sequence (`sendStoredGasTopUp`).
 *
 * May touch, in its own transactions: the withdrawals room's queue (`claimDue`, `markSucceeded`,
 * `markFailed`, `lockForPayout`/`lockManyForPayout`, `releaseClaim`), the ledger (`applyLedgerChange`)
 * and, for a refund's payout, the refunds room (`finishRefundPayouts`); it reads the alerts room's
 * `payoutsHalted` before it claims (a halted network signs nothing).
 */
export { AHEAD_TTL_MS, createPayoutsAhead, type PayoutsAhead } from './ahead.js';
export { finishPayout, type PayoutOutcome } from './finish.js';
export {
  claimWithdrawals,
  processPayouts,
  startPayoutWorker,
  type PayoutDeps,
  type PayoutWorker,
  type PayoutWorkerOptions,
} from './worker.js';
export { ensureNonceSequence, processStoredPayouts, sendStoredGasTopUp, signAndStore, type StoredPayoutOptions, type TransactionToStore } from './stored.js';
