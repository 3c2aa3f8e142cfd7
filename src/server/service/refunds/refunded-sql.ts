/**
 * What was refunded of a payment, as an SQL expression the sessions and orders rooms embed in their
 * reads (`refundedAmount`), so the columns of `refunds` are named only in this room. A module of its
 * own, importing no room: the rooms whose reads embed it are rooms this one calls.
 *
 * A refund counts while its amount is out of the merchant's balance: awaiting an address, on its way,
 * or paid out (`paying` until its payout finishes, then `success`); a cancelled or failed one does not.
 */
import { sqlList } from '../../db/sql-list.js';

/** The stored statuses of a refund whose amount is back in the balance (it no longer counts), as an SQL list. */
export const RETURNED = sqlList(['cancelled', 'failed']);

/** The amount refunded of the session whose id `sessionIdSql` yields (0 when none). */
export function refundedOfSessionSql(sessionIdSql: string): string {
  return `(SELECT coalesce(sum(rf.amount), 0) FROM refunds rf WHERE rf.session_id = ${sessionIdSql} AND rf.status NOT IN (${RETURNED}))`;
}

/** The amount refunded of the sessions of the order whose id `orderIdSql` yields (0 when none). */
export function refundedOfOrderSql(orderIdSql: string): string {
  return `(SELECT coalesce(sum(rf.amount), 0) FROM refunds rf WHERE rf.order_id = ${orderIdSql} AND rf.status NOT IN (${RETURNED}))`;
}
