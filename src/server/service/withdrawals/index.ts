/**
 * # Room: withdrawals
 *
 * Owns: the table `withdrawals` (./repository.ts holds all its SQL, the payout queue's included),
 * `/v1/withdrawal*` (./routes.ts: create with `Idempotency-Key`, list, get, and the configured
 * networks at `/v1/withdrawal/networks`), the request's rules as the API applies them (./domain.ts,
 * over `core/rules/withdrawal.ts`), and the intake that records requests for one balance in turns, a
 * burst's in one statement (./intake.ts).
 *
 * May touch, in that one statement (`recordWithdrawals`), each through its own part of it: the ledger
 * (`reserveInOrderSql`), idempotency (`keyUnusedSql`, `storeAnswersSql`; `storedAnswer` for a key used
 * before, `usedKeys` for the keys a failed statement met), the sessions room's deposit addresses (`depositAddressOfSql`: a withdrawal to the merchant's
 * own is refused); after it, domain events (`recordEvent`: `withdrawals.due`, the payout workers'
 * wake-up); in the payouts room's transaction, domain events (`announceWithdrawals`: the withdrawal webhooks).
 * The payouts room claims and finishes withdrawals through this room's repository functions
 * (`claimDue`, `markSucceeded`, `markFailed`, and on a real chain `lockForPayout`/`lockManyForPayout`, `releaseClaim`,
 * and why a payout is held up: `setStalledReasons`, `markHalted`, `heldForHotWallet`);
 * the one other writer is the payouts room's `insertStored`, which shows each withdrawal its payout's
 * transaction hash in the statement that stores the signed transaction. `paylink chain resume` (the
 * sessions room) fails waiting withdrawals of a balance a reversal left owing (`failWaitingOf`).
 *
 * A refund's payout is a withdrawal too (`refund_id` names the refund): the refunds room queues it
 * (`insertRefundPayout`, its funds already reserved by the refund) and reads it through `payoutSql`;
 * the withdrawal API neither lists nor shows it (it is the refund's).
 */
export { announceWithdrawals, getWithdrawal, listWithdrawals, parseWithdrawalRequest, toWithdrawal, withdrawalNetworks } from './domain.js';
export type { WithdrawalRequest } from './domain.js';
export { createWithdrawalIntake, type WithdrawalIntake, type WithdrawalOutcome } from './intake.js';
export {
  claimDue,
  countWaitingForHotWallet,
  failWaitingOf,
  heldForHotWallet,
  HOLDING_REASONS,
  insertRefundPayout,
  lockForPayout,
  lockManyForPayout,
  markFailed,
  markHalted,
  markSucceeded,
  payoutSql,
  releaseClaim,
  setStalledReasons,
  type ClaimedWithdrawal,
} from './repository.js';
export { withdrawalOperations } from './routes.js';
