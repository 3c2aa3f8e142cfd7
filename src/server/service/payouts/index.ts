/**
 * # Room: payouts
 *
 * Owns: the payout worker (./worker.ts): claiming pending withdrawals, sending them through the
 * chain adapter, and finishing them (`finishPayout(tx, …)`, which takes the caller's transaction);
 * on a real chain, the stored signed transactions (./stored.ts) and the tables `payout_nonces` and
 * `payout_transactions` (./repository.ts holds all their SQL). `paylink sweep` takes its gas
 * top-ups' nonces from the same sequence (`sendStoredGasTopUp`).
 *
 * May touch, in its own transactions: the withdrawals room's queue (`claimDue`, `markSucceeded`,
 * `markFailed`, `lockForPayout`, `setPayoutHash`) and the ledger (`applyLedgerChange`).
 */
export {
  claimWithdrawals,
  finishPayout,
  processPayouts,
  startPayoutWorker,
  type PayoutDeps,
  type PayoutOutcome,
  type PayoutWorker,
  type PayoutWorkerOptions,
} from './worker.js';
export { ensureNonceSequence, processStoredPayouts, sendStoredGasTopUp, signAndStore, type StoredPayoutOptions } from './stored.js';
