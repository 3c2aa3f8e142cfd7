/**
 * # Room: withdrawals
 *
 * Owns: the table `withdrawals` (./repository.ts holds all its SQL, the payout queue's included),
 * `/v1/withdrawal*` (./routes.ts: create with `Idempotency-Key`, list, get, and the configured
 * networks at `/v1/withdrawal/networks`), and the request's rules as the API applies them (./domain.ts,
 * over `core/rules/withdrawal.ts`).
 *
 * May touch, in its own transaction: the ledger (`reserveFunds`), idempotency (`runIdempotent`) and the
 * sessions room's deposit addresses (`isDepositAddressOf`: a withdrawal to the merchant's own is refused);
 * in the payouts room's transaction, domain events (`announceWithdrawals`: the withdrawal webhooks).
 * The payouts room claims and finishes withdrawals through this room's repository functions
 * (`claimDue`, `markSucceeded`, `markFailed`, and on a real chain `lockForPayout`/`lockManyForPayout`, `releaseClaim` and `setPayoutHashes`,
 * which shows a payout's transaction hash while it confirms); no one else writes the table.
 */
export { announceWithdrawals, createWithdrawal, getWithdrawal, listWithdrawals, parseWithdrawalRequest, toWithdrawal, withdrawalNetworks } from './domain.js';
export type { WithdrawalOutcome, WithdrawalRequest } from './domain.js';
export { claimDue, lockForPayout, lockManyForPayout, markFailed, markSucceeded, releaseClaim, setPayoutHashes, type ClaimedWithdrawal } from './repository.js';
export { withdrawalOperations } from './routes.js';