/**
 * `POST /v1/checkout-session/{id}/resolve`: the merchant accepts a payment that went wrong as paid, as
 * Coinbase Commerce's "resolve" does: an `underpaid` session (still open or expired), or one paid late
 * (an `expired` session with a late transfer). In one transaction, under the locks settlement takes (its
 * order, then the session): the session is marked `resolution: "merchant"` (an open one closes, so a
 * later transfer to it is a late payment, never a second payment); a payment link's session counts as
 * one of its payments; an order becomes `paid` by it (from `open` or `expired`); and
 * `checkout.session.resolved` and, for an order, `order.paid` (with `resolution: "merchant"`) are sent.
 *
 * Refused with 409, changing nothing: a session already paid in full (`already_paid`), one that brought
 * nothing in (`nothing_paid`), one whose transfer still waits for its confirmations (`payment_confirming`)
 * or was reversed (`payment_reversed`), one whose order another session paid (`order_paid`) or the
 * merchant cancelled (`order_cancelled`: refund it instead). A session resolved already is answered as
 * it is, so a retried resolve is safe.
 */
import { compareDecimal } from '../../../core/money.js';
import { isUuid } from '../../../core/rules/limits.js';
import { SETTLED_STATUSES } from '../../../core/rules/session.js';
import type { CheckoutSessionRecord } from '../../../core/schemas.js';
import type { Database } from '../../db/index.js';
import type { ErrorCode } from '../../../core/errors.js';
import { ApiError, notFound } from '../errors.js';
import { recordEvent } from '../events/index.js';
import type { Principal } from '../keys/index.js';
import { countPayment } from '../links/index.js';
import { lockOrderForPayment, markOrderResolved } from '../orders/index.js';
import { announceSession, lockSessionForSettlement, markSessionResolved, orderOfSession, readSessionRecord } from '../sessions/index.js';
import { closeOrderSessions } from '../money-in/index.js';

const conflict = (code: ErrorCode, message: string) => new ApiError(409, code, message);

/** See the module comment. Resolves with the session as `GET /v1/checkout-session/{id}` shows it after. */
export async function resolveSession(
  deps: { db: Database; now: () => Date },
  principal: Principal,
  id: string,
  reason: string | null,
): Promise<CheckoutSessionRecord> {
  if (!isUuid(id)) throw notFound('Checkout session');
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const orderId = await orderOfSession(tx, id);
    const order = orderId ? await lockOrderForPayment(tx, orderId) : undefined;
    const session = await lockSessionForSettlement(tx, id);
    const record = session && session.integrator_id === principal.integratorId ? await readSessionRecord(tx, id) : undefined;
    if (!session || !record) throw notFound('Checkout session');
    if (record.resolution) return record;
    if (SETTLED_STATUSES.has(session.status)) throw conflict('already_paid', 'This payment is paid in full: there is nothing to resolve');
    if (session.status === 'confirming')
      throw conflict('payment_confirming', 'A transfer to this session still waits for its confirmations: resolve it once it has them');
    if (session.status === 'reversed')
      throw conflict('payment_reversed', 'This payment was taken back by a reorg before it was final: there is nothing to accept');
    if (compareDecimal(session.paid_amount, '0') <= 0 && compareDecimal(session.late_amount, '0') <= 0)
      throw conflict('nothing_paid', 'This session received nothing: there is no payment to accept');
    if (order?.status === 'cancelled') throw conflict('order_cancelled', 'You cancelled this order: refund the payment instead (POST /v1/refund)');
    if (order?.status === 'paid' && order.paid_session_id !== id)
      throw conflict('order_paid', 'Another payment paid this order already: refund this one instead (POST /v1/refund)');

    await markSessionResolved(tx, id, reason, now);
    if (session.link_id) await countPayment(tx, session.link_id);
    if (order && (await markOrderResolved(tx, order, id, now))) await closeOrderSessions(tx, order.id, now, id);
    await recordEvent(tx, { type: 'session.changed', sessionId: id });
    await announceSession(tx, 'checkout.session.resolved', { id, integratorId: session.integrator_id }, now);
    return (await readSessionRecord(tx, id))!;
  });
}
