/**
 * Settlement: an incoming transfer reported by the chain, recorded and credited once, in ONE
 * transaction with the session's new status, the integrator's balance (ledger), the link's
 * `paymentCount` (when this transfer settles the session) and the `session.changed` event.
 *
 * `settleTransfer` takes the caller's transaction, so the chain scanner (./scanner.ts) can settle a
 * confirmed transfer inside the transaction that also advances its cursor; `settleIncomingTransfer`
 * runs it in a transaction of its own.
 *
 * Every transfer credits the integrator by the amount received (ledger kind `payment`): on the
 * sandbox into `available` at once; on a real chain into `pending`, where it stays until its block is
 * final (the scanner then moves it to `available`, or reverses it if a reorg took it back). A transfer
 * that arrives AFTER expiry, or after the session is already `paid`/`overpaid`, is still the
 * merchant's money: it is credited as `late_payment` and kept in `late_amount`, but the session keeps
 * its status, `paidAmount` and `txHash`, and it is not counted as a link payment again. A transfer is
 * identified by network + transaction hash + log index (on the sandbox, which has no log index, by
 * hash alone): it is settled at most once (unique constraint), so a transfer reported or simulated
 * twice credits once.
 *
 * On a real chain a transfer is settled once it has its confirmations, which may be after the quote
 * ran out: what decides "in time" is when it arrived (`arrivedAt`, the time of its block), and a
 * session `confirming` is open (its status before the transfer follows from what it has been paid).
 *
 * A deposit address is the same on every configured network, so the session is found by its address
 * alone: a transfer on another network than the one quoted pays it by the same rules, credited in the
 * balance of the network it came on (`transfer.blockchainId`), which becomes the session's
 * `paid_blockchain_id` with its hash. On the sandbox, whose money is available at once, a session is
 * final (`finalized_at`) when it settles; on a real chain ./finality.ts marks it once its money is.
 */
import { randomUUID } from 'node:crypto';
import { ASSET_DIGITS, compareDecimal, fractionDigits, fromUnits, toDecimalString, toUnits } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import { OPEN_STATUSES, SETTLED_STATUSES } from '../../../core/rules/session.js';
import type { SessionStatus } from '../../../core/schemas.js';
import type { IncomingTransfer } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { ApiError } from '../errors.js';
import { recordEvent } from '../events/index.js';
import { applyLedgerChange, assetAmount } from '../ledger/index.js';
import { countPayment } from '../links/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { lockOrderForPayment, markOrderPaid } from '../orders/index.js';
import {
  announceSession,
  closeSessionsOfOrder,
  findSessionByAddress,
  findTransferSession,
  insertTransfer,
  lockSessionForSettlement,
  updateSettlement,
} from '../sessions/settling.js';

export interface SettleOptions {
  /** Refuse (409 `already_paid`) a new transfer to a session that is already paid. */
  refuseWhenSettled?: boolean;
  /**
   * Another transfer to this session, made in time, is still waiting for its confirmations: the
   * session stays `confirming` rather than `underpaid` (or `expired`).
   */
  othersConfirming?: boolean;
  /** The id of the `chain_transfers` row to write (the scanner links its own record to it); default random. */
  transferId?: string;
}

/** An amount of a session's asset in 10^-6 units (`CRYPTO_DIGITS`). */
export function units(value: string): bigint {
  return toUnits(assetAmount(value), CRYPTO_DIGITS);
}

/**
 * Records `transfer` and credits the integrator in the caller's transaction `tx`. Returns the
 * session's id and whether the transfer had already been recorded (then nothing changed).
 */
export async function settleTransfer(
  tx: Queryable,
  transfer: IncomingTransfer,
  now: Date,
  options: SettleOptions = {},
): Promise<{ sessionId: string; duplicate: boolean }> {
  const amount = toDecimalString(transfer.amount);
  if (amount === null || compareDecimal(amount, '0') <= 0 || fractionDigits(amount) > (ASSET_DIGITS[transfer.assetId] ?? CRYPTO_DIGITS))
    throw new ApiError(422, 'invalid_transfer', 'A transfer needs a positive amount with at most 6 decimals');
  const txHash = transfer.txHash.toLowerCase();

  // A session of an order is locked after its order, as every path that changes both does (no deadlock).
  const target = await findSessionByAddress(tx, transfer.blockchainId, transfer.toAddress);
  const order = target?.order_id ? await lockOrderForPayment(tx, target.order_id) : undefined;
  const session = target && (await lockSessionForSettlement(tx, target.id));
  if (!session) throw new ApiError(404, 'unknown_deposit_address', 'No checkout session has this deposit address');
  if (session.asset_id !== transfer.assetId) throw new ApiError(422, 'asset_mismatch', `This session is paid in ${session.asset_id}, not ${transfer.assetId}`);

  const seenFor = await findTransferSession(tx, transfer.blockchainId, txHash, transfer.logIndex);
  if (seenFor !== undefined) {
    if (seenFor === session.id) return { sessionId: session.id, duplicate: true };
    throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash was already recorded for another session');
  }

  const crypto = units(session.crypto_amount);
  let paid = units(session.paid_amount);
  let late = units(session.late_amount);
  // A `confirming` session is open: before its transfers it was awaiting payment, or underpaid.
  let status: SessionStatus = session.status === 'confirming' ? (paid > 0n ? 'underpaid' : 'awaiting_payment') : session.status;
  const arrivedAt = transfer.arrivedAt ?? now;
  // An order is paid once: when another session paid it (or the merchant cancelled it), this session
  // can no longer pay it, whenever its transfer arrived; it closes, and the transfer is late.
  const orderClosed = order !== undefined && order.status !== 'open' && order.paid_session_id !== session.id;
  const arrivedLate = OPEN_STATUSES.has(status) && (orderClosed || session.expires_at.getTime() <= arrivedAt.getTime());
  if (arrivedLate) status = 'expired';
  if (SETTLED_STATUSES.has(status) && options.refuseWhenSettled) throw new ApiError(409, 'already_paid', 'This checkout session is already paid');

  // Terminal sessions never change status again: a transfer after expiry, after settlement or after a reversal is late.
  const kind = status === 'expired' || status === 'reversed' || SETTLED_STATUSES.has(status) ? 'late_payment' : 'payment';
  // A late transfer does not close a session that another transfer, made in time, is still confirming.
  if (arrivedLate && options.othersConfirming) status = session.status;
  const transferId = options.transferId ?? randomUUID();
  const inserted = await insertTransfer(tx, {
    id: transferId,
    sessionId: session.id,
    blockchainId: transfer.blockchainId,
    txHash,
    assetId: transfer.assetId,
    amount,
    toAddress: transfer.toAddress,
    kind,
    sandbox: transfer.sandbox,
    receivedAt: now,
    logIndex: transfer.logIndex,
    finalAt: transfer.sandbox ? now : null,
  });
  // Only a concurrent twin of this very hash gets here (the unique key decided against us).
  if (!inserted) throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash is being recorded already');

  await applyLedgerChange(tx, {
    integratorId: session.integrator_id,
    assetId: session.asset_id,
    blockchainId: transfer.blockchainId,
    kind,
    // Only final funds can be withdrawn: a real chain's credit waits in `pending` for its block to be final.
    availableDelta: transfer.sandbox ? amount : '0',
    pendingDelta: transfer.sandbox ? '0' : amount,
    transferId,
  });

  const received = toUnits(amount, CRYPTO_DIGITS);
  if (kind === 'payment') {
    paid += received;
    status = paid < crypto ? 'underpaid' : paid === crypto ? 'paid' : 'overpaid';
    if (status === 'underpaid' && options.othersConfirming) status = 'confirming';
  } else {
    late += received;
  }
  const settlesNow = !SETTLED_STATUSES.has(session.status) && SETTLED_STATUSES.has(status);
  // The sandbox's money is available at once: a session it settles is final at once too (its
  // `checkout.session.paid` already shows `finalizedAt`; no other event follows).
  const finalNow = settlesNow && transfer.sandbox;
  await updateSettlement(tx, {
    id: session.id,
    status,
    paidAmount: fromUnits(paid, CRYPTO_DIGITS),
    lateAmount: fromUnits(late, CRYPTO_DIGITS),
    paid: kind === 'payment' ? { txHash, blockchainId: transfer.blockchainId } : null,
    settledAt: settlesNow ? now : null,
    finalizedAt: finalNow ? now : null,
    now,
  });
  if (settlesNow && session.link_id) await countPayment(tx, session.link_id, { amount: session.raise_amount, currency: session.raise_currency });
  if (settlesNow && order) {
    // The first session to settle pays the order; its other sessions close (a transfer to one later is late).
    await markOrderPaid(tx, order, session.id, now);
    await closeOrderSessions(tx, order.id, now, session.id);
  }
  await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
  // The merchant's webhook: paid once, when the session settles; late and underpaid per transfer.
  const announced = settlesNow
    ? 'checkout.session.paid'
    : kind === 'late_payment'
      ? 'payment.late'
      : status === 'underpaid'
        ? 'checkout.session.underpaid'
        : null;
  if (announced) await announceSession(tx, announced, { id: session.id, integratorId: session.integrator_id }, now);
  return { sessionId: session.id, duplicate: false };
}

/**
 * Closes the sessions of order `orderId` that can no longer pay it (it was paid by `exceptId`, or
 * cancelled), in the caller's transaction, and tells their watchers and the merchant
 * (`checkout.session.expired`). The caller holds the order's lock.
 */
export async function closeOrderSessions(tx: Queryable, orderId: string, now: Date, exceptId: string | null = null): Promise<void> {
  for (const closed of await closeSessionsOfOrder(tx, orderId, now, exceptId)) {
    await recordEvent(tx, { type: 'session.changed', sessionId: closed.id });
    await announceSession(tx, 'checkout.session.expired', closed, now);
  }
}

/** `settleTransfer` in a transaction of its own, on the service's clock. */
export async function settleIncomingTransfer(
  deps: Pick<MoneyServiceDeps, 'db' | 'now'>,
  transfer: IncomingTransfer,
  options: SettleOptions = {},
): Promise<{ sessionId: string; duplicate: boolean }> {
  return deps.db.transaction((tx) => settleTransfer(tx, transfer, deps.now(), options));
}
