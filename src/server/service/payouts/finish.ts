/**
 * The last step of every payout, shared by the direct payouts of the sandbox (./worker.ts) and the
 * stored transactions of a real chain (./stored.ts): the withdrawal's final status, its ledger entry
 * and its webhook, in the caller's transaction. Kept apart so that neither of those imports the other.
 */
import type { Queryable } from '../../db/index.js';
import { applyLedgerChange, assetAmount } from '../ledger/index.js';
import { announceWithdrawal, markFailed, markSucceeded, type ClaimedWithdrawal } from '../withdrawals/index.js';

/**
 * What the chain said of a payout: sent (with its hash and, where the receipt says, what the
 * recipient received), or refused for good (with the reason).
 */
export type PayoutOutcome = { ok: true; txHash: string; sandbox: boolean; receivedAmount?: string | undefined } | { ok: false; reason: string };

/**
 * Records a payout's outcome in the caller's transaction `tx`: the withdrawal's final status and the
 * ledger entry that goes with it (`withdrawal_payout`: pending − amount; `withdrawal_release`:
 * pending − amount, available + amount). Returns false, having changed nothing, when the withdrawal
 * was finished already or claimed again by a newer attempt (a failure is fenced by `attempts`).
 * The `withdrawal.succeeded`/`withdrawal.failed` webhook is recorded here, in the same transaction.
 */
export async function finishPayout(tx: Queryable, withdrawal: ClaimedWithdrawal, outcome: PayoutOutcome, now: Date): Promise<boolean> {
  const amount = assetAmount(withdrawal.amount);
  const finished = outcome.ok
    ? await markSucceeded(tx, withdrawal.id, outcome.txHash, outcome.sandbox, now, outcome.receivedAmount)
    : await markFailed(tx, withdrawal.id, outcome.reason, now, withdrawal.attempts);
  if (!finished) return false;
  await applyLedgerChange(tx, {
    integratorId: withdrawal.integrator_id,
    assetId: withdrawal.asset_id,
    blockchainId: withdrawal.blockchain_id,
    kind: outcome.ok ? 'withdrawal_payout' : 'withdrawal_release',
    availableDelta: outcome.ok ? '0' : amount,
    pendingDelta: `-${amount}`,
    withdrawalId: withdrawal.id,
  });
  await announceWithdrawal(tx, outcome.ok ? 'withdrawal.succeeded' : 'withdrawal.failed', { id: withdrawal.id, integratorId: withdrawal.integrator_id }, now);
  return true;
}
