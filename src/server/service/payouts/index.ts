/**
 * # Room: payouts
 *
 * Owns: the payout worker (./worker.ts): claiming pending withdrawals and sending them through the
 * chain adapter; finishing them (./finish.ts: `finishPayout(tx, …)`, which takes the caller's
 * transaction, shared by the worker and the stored transactions);
 * on a real chain, the stored signed transactions, one round at a time (./round.ts), in stages:
 * prepare, sign and store (./store.ts), broadcast (./broadcast.ts), follow to their confirmations and
 * finish (./follow.ts), with what they share in ./context.ts; and the tables `payout_nonces` and
 * `payout_transactions` (./repository.ts holds all their SQL). `paylink sweep` takes its gas
 * top-ups' nonces from the same sequence (`sendStoredGasTopUp`).
 *
 * Also, on a real chain: why a payout waits (./waits.ts: each withdrawal's `stalledReason`, written
 * only when it changes, and the log lines of waits), and the hot wallet held against what the payouts
 * owe (./hot-wallet.ts: the `hot_wallet_low` alert, payouts held until it is topped up).
 *
 * May touch, in its own transactions: the withdrawals room's queue (`claimDue`, `markSucceeded`,
 * `markFailed`, `lockForPayout`/`lockManyForPayout`, `releaseClaim`, and `setStalledReasons`,
 * `markHalted`, `heldForHotWallet`), the ledger (`applyLedgerChange`), for a refund's payout the
 * refunds room (`finishRefundPayouts`), and the alerts room
 * (`raiseAlert`/`clearAlert` of `hot_wallet_low`; `payoutsHalted`).
 */
export { AHEAD_TTL_MS, createPayoutsAhead, type PayoutsAhead } from './ahead.js';
export { finishPayout, type PayoutOutcome } from './finish.js';
export { checkHotWallet, createHotWalletWatch, type HotWalletCheck, type HotWalletWatch } from './hot-wallet.js';
export { claimWithdrawals, processPayouts, startPayoutWorker, type PayoutDeps, type PayoutWorker, type PayoutWorkerOptions } from './worker.js';
export type { StoredPayoutOptions } from './context.js';
export { processStoredPayouts, sendStoredGasTopUp } from './round.js';
export { ensureNonceSequence, signAndStore, type TransactionToStore } from './store.js';
