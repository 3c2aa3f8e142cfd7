/**
 * After crediting, on a real chain: a transfer credited at its N confirmations counts in the
 * balance's `pending` until the network's finalized block passes it; then `finalizeCredit` moves it
 * to `available` (ledger `payment_final`), the only part that can be withdrawn. When that makes every
 * transfer counted toward a settled session final, the session's money is final: `finalizedAt` and a
 * `checkout.session.finalized` webhook, once.
 *
 * A credited transfer that a reorg takes back before it is final is reversed by `reverseCredit`: its
 * own ledger entry (`payment_reversal`, pending − amount), so the sum of the entries still equals the
 * balance; its session becomes `reversed` (a late payment's keeps its status); the link's payment is
 * uncounted; and a `payment.reversed` webhook is written to the outbox, all in the caller's transaction.
 * A final one is reversed only after a reorganization past finality, when an operator resumes the
 * network (`orFinal`, ./resume.ts): the entry then takes the amount from `available`, which may leave
 * the balance owing what had been withdrawn already (see the ledger's `mayOwe`).
 *
 * Both are keyed by the transfer's row, which is closed once (`final_at` or `reversed_at`) under its
 * lock, and by the ledger's unique (transfer, kind): a crash or a second instance anywhere between
 * steps can neither finalize nor reverse a transfer twice. Both lock the session first, then the
 * transfer: the order every path takes, so instances never deadlock, and two transfers of one session
 * made final at once see each other (the second waits for the first's session lock).
 */
import type { Queryable } from '../../db/index.js';
import { recordEvent } from '../events/index.js';
import { applyLedgerChange } from '../ledger/index.js';
import { uncountPayment } from '../links/index.js';
import { SETTLED_STATUSES } from '../../../core/rules/session.js';
import {
  announceSession,
  closeTransfer,
  lockUnfinalTransfer,
  markSessionFinal,
  reverseInSession,
  sessionOfTransfer,
  type UnfinalTransfer,
} from '../sessions/settling.js';
import { lockSessionById, markIncomingReversed } from './repository.js';

/**
 * Makes a credited transfer's funds available, and its session's money final when it was the last
 * counted transfer to become so; false when it is final or reversed already.
 */
export async function finalizeCredit(tx: Queryable, transferId: string, now: Date): Promise<boolean> {
  const sessionId = await sessionOfTransfer(tx, transferId);
  if (!sessionId) return false;
  await lockSessionById(tx, sessionId);
  const transfer = await lockUnfinalTransfer(tx, transferId);
  if (!transfer || !(await closeTransfer(tx, transferId, 'final', now))) return false;
  await applyLedgerChange(tx, {
    integratorId: transfer.integrator_id,
    assetId: transfer.asset_id,
    blockchainId: transfer.blockchain_id,
    kind: 'payment_final',
    availableDelta: transfer.amount,
    pendingDelta: `-${transfer.amount}`,
    transferId,
  });
  if (await markSessionFinal(tx, sessionId, now)) {
    await recordEvent(tx, { type: 'session.changed', sessionId });
    await announceSession(tx, 'checkout.session.finalized', { id: sessionId, integratorId: transfer.integrator_id }, now);
  }
  return true;
}

/**
 * Reverses a credited transfer that is no longer on the chain (see the module comment): one not
 * final yet, or with `orFinal` a final one too. Resolves with what was reversed (`final`: its funds
 * were available), or undefined when it was final (without `orFinal`) or reversed already.
 */
export async function reverseCredit(
  tx: Queryable,
  transferId: string,
  now: Date,
  { orFinal = false } = {},
): Promise<(UnfinalTransfer & { final: boolean }) | undefined> {
  const sessionId = await sessionOfTransfer(tx, transferId);
  if (!sessionId) return undefined;
  // The session first, then the transfer: the order every path takes, so instances never deadlock.
  await lockSessionById(tx, sessionId);
  const transfer = await lockUnfinalTransfer(tx, transferId, orFinal);
  if (!transfer || !(await closeTransfer(tx, transferId, 'reversed', now, orFinal))) return undefined;
  await applyLedgerChange(tx, {
    integratorId: transfer.integrator_id,
    assetId: transfer.asset_id,
    blockchainId: transfer.blockchain_id,
    kind: 'payment_reversal',
    // Final funds were available (and may have been withdrawn: the balance then owes them).
    availableDelta: transfer.final ? `-${transfer.amount}` : '0',
    pendingDelta: transfer.final ? '0' : `-${transfer.amount}`,
    mayOwe: transfer.final,
    transferId,
  });
  await markIncomingReversed(tx, transferId, now);
  const before = await reverseInSession(tx, { sessionId, kind: transfer.kind, amount: transfer.amount, now });
  if (transfer.kind === 'payment' && before !== undefined && SETTLED_STATUSES.has(before))
    await uncountPayment(tx, transfer.link_id, { amount: transfer.raise_amount, currency: transfer.raise_currency });
  await recordEvent(tx, { type: 'session.changed', sessionId });
  await announceSession(tx, 'payment.reversed', { id: sessionId, integratorId: transfer.integrator_id }, now);
  return transfer;
}
