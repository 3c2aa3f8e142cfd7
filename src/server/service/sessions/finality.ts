/**
 * After crediting, on a real chain: a transfer credited at its N confirmations counts in the
 * balance's `pending` until the network's finalized block passes it; then `finalizeCredit` moves it
 * to `available` (ledger `payment_final`), the only part that can be withdrawn. A credited transfer
 * that a reorg takes back before that is reversed by `reverseCredit`: its own ledger entry
 * (`payment_reversal`, pending − amount), so the sum of the entries still equals the balance; its
 * session becomes `reversed` (a late payment's keeps its status); the link's payment is uncounted;
 * and a `payment.reversed` webhook is written to the outbox, all in the caller's transaction.
 *
 * Both are keyed by the transfer's row, which is closed once (`final_at` or `reversed_at`) under its
 * lock, and by the ledger's unique (transfer, kind): a crash or a second instance anywhere between
 * steps can neither finalize nor reverse a transfer twice.
 */
import type { Queryable } from '../../db/index.js';
import { recordEvent } from '../events/index.js';
import { applyLedgerChange } from '../ledger/index.js';
import { uncountPayment } from '../links/index.js';
import { SETTLED_STATUSES } from '../../../core/rules/session.js';
import { lockSessionById, markIncomingReversed } from './incoming-repository.js';
import { announceSession } from './records.js';
import { closeTransfer, lockUnfinalTransfer, reverseInSession, sessionOfTransfer, type UnfinalTransfer } from './repository.js';

/** Makes a credited transfer's funds available; false when it is final or reversed already. */
export async function finalizeCredit(tx: Queryable, transferId: string, now: Date): Promise<boolean> {
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
  return true;
}

/**
 * Reverses a credited transfer that is no longer on the chain (see the module comment). Resolves
 * with what was reversed, or undefined when it was final or reversed already.
 */
export async function reverseCredit(tx: Queryable, transferId: string, now: Date): Promise<UnfinalTransfer | undefined> {
  const sessionId = await sessionOfTransfer(tx, transferId);
  if (!sessionId) return undefined;
  // The session first, then the transfer: the order every path takes, so instances never deadlock.
  await lockSessionById(tx, sessionId);
  const transfer = await lockUnfinalTransfer(tx, transferId);
  if (!transfer || !(await closeTransfer(tx, transferId, 'reversed', now))) return undefined;
  await applyLedgerChange(tx, {
    integratorId: transfer.integrator_id,
    assetId: transfer.asset_id,
    blockchainId: transfer.blockchain_id,
    kind: 'payment_reversal',
    availableDelta: '0',
    pendingDelta: `-${transfer.amount}`,
    transferId,
  });
  await markIncomingReversed(tx, transferId, now);
  const before = await reverseInSession(tx, { sessionId, kind: transfer.kind, amount: transfer.amount, now });
  if (transfer.kind === 'payment' && before !== undefined && SETTLED_STATUSES.has(before)) await uncountPayment(tx, transfer.link_id, { amount: transfer.raise_amount, currency: transfer.raise_currency });
  await recordEvent(tx, { type: 'session.changed', sessionId });
  await announceSession(tx, 'payment.reversed', { id: sessionId, integratorId: transfer.integrator_id }, now);
  return transfer;
}
