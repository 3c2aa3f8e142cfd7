/**
 * The SQL of `orders`: nothing else in the service reads or writes it. Other rooms read an order's
 * columns only through the fragments of `orderSql` (a session's read joins its order).
 */
import { randomUUID } from 'node:crypto';
import type { LinkCartItem } from '../../../core/rules/link.js';
import type { OrderDraft, OrderStatusName } from '../../../core/rules/order.js';
import { UNSETTLED_STATUSES } from '../../../core/rules/session.js';
import type { Queryable } from '../../db/index.js';
import { sqlList } from '../../db/sql-list.js';
import { integratorSql } from '../keys/index.js';
import { refundedOfOrderSql } from '../refunds/refunded-sql.js';

/** An order as stored. */
export interface OrderRow {
  id: string;
  integrator_id: string;
  reference: string;
  status: OrderStatusName;
  url: string;
  title: string;
  description: string;
  fiat_amount: string;
  fiat_currency: string;
  cart_items: LinkCartItem[];
  metadata: Record<string, string>;
  collect_address: boolean;
  collect_phone: boolean;
  success_message: string;
  redirect_url: string;
  show_confirmation_page: boolean;
  expires_at: Date;
  paid_session_id: string | null;
  paid_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The owner's display name; only the public read selects it. */
  merchant_name?: string | null;
  /** `merchant` when the merchant accepted an underpaid or late payment as its payment. */
  resolution: 'merchant' | null;
  /** What its sessions' refunds not failed or cancelled give back (the refunds room's `refundedOfOrderSql`). */
  refunded_amount: string;
}

const COLUMNS = `id, integrator_id, reference, status, url, title, description, fiat_amount, fiat_currency, cart_items, metadata,
  collect_address, collect_phone, success_message, redirect_url, show_confirmation_page, expires_at, paid_session_id,
  paid_at, cancelled_at, created_at, updated_at, resolution, ${refundedOfOrderSql('orders.id')} AS refunded_amount`;

/**
 * Inserts an open order in the caller's transaction; undefined (nothing written) when the integrator
 * has an open order of the same reference (the unique index `orders_open_reference` decides, waiting
 * for a concurrent insert of it to commit or roll back).
 */
export async function insertOrder(tx: Queryable, integratorId: string, draft: OrderDraft, publicUrl: string, now: Date): Promise<OrderRow | undefined> {
  const id = randomUUID();
  const { rows } = await tx.query<OrderRow>(
    `INSERT INTO orders (id, integrator_id, reference, status, title, description, fiat_amount, fiat_currency, cart_items, metadata,
       collect_address, collect_phone, success_message, redirect_url, show_confirmation_page, expires_at, created_at, updated_at, url)
     VALUES ($1, $2, $3, 'open', $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14, $15, $16, $16, $17)
     ON CONFLICT (integrator_id, reference) WHERE status = 'open' DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      id,
      integratorId,
      draft.reference,
      draft.title,
      draft.description,
      draft.fiatAmount,
      draft.fiatCurrency,
      JSON.stringify(draft.cartItems),
      JSON.stringify(draft.metadata),
      draft.collectAddress,
      draft.collectPhone,
      draft.successMessage,
      draft.redirectUrl,
      draft.showConfirmationPage,
      draft.expiresAt,
      now,
      `${publicUrl}/order/${id}`,
    ],
  );
  return rows[0];
}

/** The id of the integrator's open order of `reference`, or undefined. */
export async function findOpenOrderId(db: Queryable, integratorId: string, reference: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM orders WHERE integrator_id = $1 AND reference = $2 AND status = 'open'`, [
    integratorId,
    reference,
  ]);
  return rows[0]?.id;
}

/** One order by id (of `integratorId` only, when given), with its merchant's display name, or undefined. */
export async function findOrder(db: Queryable, id: string, integratorId?: string): Promise<OrderRow | undefined> {
  const { rows } = await db.query<OrderRow>(
    `SELECT ${COLUMNS}, ${integratorSql.displayName('integrator_id')} AS merchant_name FROM orders
     WHERE id = $1${integratorId === undefined ? '' : ' AND integrator_id = $2'}`,
    integratorId === undefined ? [id] : [id, integratorId],
  );
  return rows[0];
}

/**
 * Locks an order until the caller's transaction ends: `update` for a change of its status (a payment,
 * a cancel), `share` for a new session of it (many may start at once; none while it changes).
 */
export async function lockOrder(tx: Queryable, id: string, mode: 'update' | 'share', integratorId?: string): Promise<OrderRow | undefined> {
  const { rows } = await tx.query<OrderRow>(
    `SELECT ${COLUMNS} FROM orders WHERE id = $1${integratorId === undefined ? '' : ' AND integrator_id = $2'} FOR ${mode === 'update' ? 'UPDATE' : 'SHARE'}`,
    integratorId === undefined ? [id] : [id, integratorId],
  );
  return rows[0];
}

/** Marks a locked open order paid by `sessionId`. */
export async function setOrderPaid(tx: Queryable, id: string, sessionId: string, now: Date): Promise<void> {
  await tx.query(`UPDATE orders SET status = 'paid', paid_session_id = $2, paid_at = $3, updated_at = $3 WHERE id = $1 AND status = 'open'`, [
    id,
    sessionId,
    now,
  ]);
}

/**
 * Marks a locked order paid by `sessionId` because its merchant accepted that session's underpaid or
 * late payment (`resolution: merchant`): from `open`, or from `expired` (the payment came after its time).
 * False when the order is in neither status (nothing changed).
 */
export async function setOrderResolved(tx: Queryable, id: string, sessionId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE orders SET status = 'paid', paid_session_id = $2, paid_at = $3, updated_at = $3, resolution = 'merchant'
     WHERE id = $1 AND status IN ('open', 'expired') RETURNING id`,
    [id, sessionId, now],
  );
  return rows.length === 1;
}

/** Marks a locked open order cancelled; the order as it is now. */
export async function setOrderCancelled(tx: Queryable, id: string, now: Date): Promise<OrderRow> {
  const { rows } = await tx.query<OrderRow>(
    `UPDATE orders SET status = 'cancelled', cancelled_at = $2, updated_at = $2 WHERE id = $1 AND status = 'open' RETURNING ${COLUMNS}`,
    [id, now],
  );
  return rows[0]!;
}

/**
 * The condition under which an open order expires at `$1`: its time is up and none of its sessions
 * can still pay it (awaiting payment or underpaid within their quote, or a transfer confirming). A
 * session's quote never outlives its order, so the sessions' own expiry closes them first.
 */
const DUE = `o.status = 'open' AND o.expires_at <= $1
  AND NOT EXISTS (SELECT 1 FROM checkout_sessions s WHERE s.order_id = o.id AND s.status IN (${sqlList(UNSETTLED_STATUSES)}))`;

/** Expires order `id` if it is due at `now` (skipping it while another transaction holds it); the order when this call expired it. */
export async function expireOrderRow(tx: Queryable, id: string, now: Date): Promise<OrderRow | undefined> {
  const { rows } = await tx.query<OrderRow>(
    `UPDATE orders SET status = 'expired', updated_at = $1
     WHERE id IN (SELECT o.id FROM orders o WHERE o.id = $2 AND ${DUE} FOR UPDATE SKIP LOCKED) RETURNING ${COLUMNS}`,
    [now, id],
  );
  return rows[0];
}

/** Expires up to `batch` due orders (skipping rows others hold); returns them. */
export async function expireDueOrderRows(tx: Queryable, now: Date, batch: number): Promise<OrderRow[]> {
  const { rows } = await tx.query<OrderRow>(
    `UPDATE orders SET status = 'expired', updated_at = $1
     WHERE id IN (SELECT o.id FROM orders o WHERE ${DUE} ORDER BY o.expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED) RETURNING ${COLUMNS}`,
    [now],
  );
  return rows;
}

/** Filters of `listOrderRows`: `createdFrom` inclusive, `createdBefore` exclusive or `createdUntil` inclusive. */
export interface OrderFilter {
  status?: OrderStatusName | undefined;
  reference?: string | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  createdUntil?: Date | undefined;
}

/** One page of an integrator's orders, newest first, and how many match in all. */
export async function listOrderRows(
  db: Queryable,
  integratorId: string,
  filter: OrderFilter,
  page: { page: number; limit: number },
): Promise<{ rows: OrderRow[]; totalItems: number }> {
  const where = ['integrator_id = $1'];
  const params: unknown[] = [integratorId];
  for (const [condition, value] of [
    ['status = ?', filter.status],
    ['reference = ?', filter.reference],
    ['created_at >= ?', filter.createdFrom],
    ['created_at < ?', filter.createdBefore],
    ['created_at <= ?', filter.createdUntil],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(condition.replace('?', `$${params.length}`));
  }
  const condition = where.join(' AND ');
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM orders WHERE ${condition}`, params);
  const { rows } = await db.query<OrderRow>(
    `SELECT ${COLUMNS} FROM orders WHERE ${condition} ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    params,
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}

/**
 * SQL fragments other rooms' reads may embed, so the columns of `orders` are named only here: a
 * checkout session's read joins its order for the title and the post-payment action.
 */
export const orderSql = {
  /** `LEFT JOIN orders <alias> ON <alias>.id = <orderIdColumn>`. */
  join: (alias: string, orderIdColumn: string) => `LEFT JOIN orders ${alias} ON ${alias}.id = ${orderIdColumn}`,
  /** The order's post-payment action, in the link's column names: `redirect`, `show_confirmation_page`, `success_message`, `redirect_url`. */
  postpay: (alias: string) => ({
    redirect: `(${alias}.redirect_url <> '')`,
    show_confirmation_page: `${alias}.show_confirmation_page`,
    success_message: `${alias}.success_message`,
    redirect_url: `${alias}.redirect_url`,
  }),
};
