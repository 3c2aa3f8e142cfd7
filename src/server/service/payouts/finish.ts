/**
 * The last step of every payout, shared by the direct payouts of the sandbox (./worker.ts) and the
 * stored transactions of a real chain (./follow.ts, ./broadcast.ts): the withdrawal's final status, its ledger entry
 * and its webhook, in the caller's transaction. Kept apart so that neither of those imports the other.
 */
import type { Queryable } from '../../db/index.js';
import { applyLedgerChanges, assetAmount } from '../ledger/index.js';
import { finishRefundPayouts } from '../refunds/index.js';
import { announceWithdrawals, markFailed, markSucceeded, type ClaimedWithdrawal } from '../withdrawals/index.js';

/**
 * What the chain said of a payout: sent (with its hash and, where the receipt says, what the
 * recipient received), or refused for good (with the reason).
 */
export type PayoutOutcome = { ok: true; txHash: string; sandbox: boolean; receivedAmount?: string | undefined } | { ok: false; reason: string };

/**
 * Records a payout's outcome in the caller's transaction `tx` (see `finishPayouts`). Returns false,
 * having changed nothing, when the withdrawal was finished already or claimed again by a newer
 * attempt (a failure is fenced by `attempts`).
 */
export async function finishPayout(tx: Queryable, withdrawal: ClaimedWithdrawal, outcome: PayoutOutcome, now: Date): Promise<boolean> {
  return (await finishPayouts(tx, [{ withdrawal, outcome }], now)).has(withdrawal.id);
}

/**
 * Records payouts' outcomes in the caller's transaction `tx`: each withdrawal's final status and the
 * ledger entry that goes with it (`withdrawal_payout`: pending − amount; `withdrawal_release`:
 * pending − amount, available + amount), and its `withdrawal.succeeded`/`withdrawal.failed` webhook. A
 * refund's payout (`refund_id`) writes the refund's kinds instead (`refund_payout`, `refund_release`),
 * and the refunds room finishes the refund (its status, `refund.succeeded`/`refund.failed`).
 * A batch costs a few statements, not a few per payout. Resolves with the ids of the withdrawals it
 * finished; one finished already, or a failure from an attempt that is no longer the newest, is left
 * as it is, its money untouched.
 */
export async function finishPayouts(
  tx: Queryable,
  payouts: ReadonlyArray<{ withdrawal: ClaimedWithdrawal; outcome: PayoutOutcome }>,
  now: Date,
): Promise<Set<string>> {
  const finished = await markSucceeded(
    tx,
    payouts.flatMap(({ withdrawal, outcome }) =>
      outcome.ok ? [{ id: withdrawal.id, txHash: outcome.txHash, sandbox: outcome.sandbox, receivedAmount: outcome.receivedAmount }] : [],
    ),
    now,
  );
  for (const { withdrawal, outcome } of payouts) {
    if (!outcome.ok && (await markFailed(tx, withdrawal.id, outcome.reason, now, withdrawal.attempts))) finished.add(withdrawal.id);
  }
  const done = payouts.filter(({ withdrawal }) => finished.has(withdrawal.id));
  await applyLedgerChanges(
    tx,
    done.map(({ withdrawal, outcome }) => {
      const amount = assetAmount(withdrawal.amount);
      return {
        integratorId: withdrawal.integrator_id,
        assetId: withdrawal.asset_id,
        blockchainId: withdrawal.blockchain_id,
        kind: withdrawal.refund_id
          ? outcome.ok
            ? ('refund_payout' as const)
            : ('refund_release' as const)
          : outcome.ok
            ? ('withdrawal_payout' as const)
            : ('withdrawal_release' as const),
        availableDelta: outcome.ok ? '0' : amount,
        pendingDelta: `-${amount}`,
        withdrawalId: withdrawal.id,
        refundId: withdrawal.refund_id ?? undefined,
      };
    }),
  );
  // A refund's payout is the refund's: its own status and events, no withdrawal webhook.
  await announceWithdrawals(
    tx,
    done.flatMap(({ withdrawal, outcome }) =>
      withdrawal.refund_id
        ? []
        : [
            {
              type: outcome.ok ? ('withdrawal.succeeded' as const) : ('withdrawal.failed' as const),
              id: withdrawal.id,
              integratorId: withdrawal.integrator_id,
            },
          ],
    ),
    now,
  );
  await finishRefundPayouts(
    tx,
    done.flatMap(({ withdrawal, outcome }) =>
      withdrawal.refund_id ? [{ refundId: withdrawal.refund_id, integratorId: withdrawal.integrator_id, ok: outcome.ok }] : [],
    ),
    now,
  );
  return finished;
}
