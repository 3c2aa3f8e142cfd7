/**
 * Orders as the API serves them: created by the merchant's server (the rules of
 * `core/rules/order.ts`, `Idempotency-Key`, one open order per reference), read, listed and cancelled
 * with the key; shown to anyone who has the id as a public view without reference, metadata or
 * customer; expired once their time is up and none of their sessions can still pay them; paid once.
 *
 * Status: `open → paid | expired | cancelled`. Cancelling a paid order is 409 `order_paid`; cancelling
 * an order that is already cancelled or expired changes nothing and answers with it (so a retried
 * cancel is safe). The SQL is ./repository.ts's.
 */
import type { z } from 'zod';
import { formatFiat } from '../../../core/money.js';
import { isUuid } from '../../../core/rules/limits.js';
import { resolveOrderDraft, type OrderDraft, type OrderInput } from '../../../core/rules/order.js';
import type { CreateOrderInput, FieldError, ListOrdersQuery, Order, OrderList, PublicOrder } from '../../../core/schemas.js';
import type { ChainAdapter } from '../../chain/types.js';
import type { Database, Queryable } from '../../db/index.js';
import { creationRange, pageMeta } from '../context.js';
import { ApiError, notFound, ruleError, validationError } from '../errors.js';
import { announce } from '../events/index.js';
import { runIdempotent, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { assetAmount } from '../ledger/index.js';
import { payableAssets } from '../links/index.js';
import {
  expireDueOrderRows,
  expireOrderRow,
  findOpenOrderId,
  findOrder,
  insertOrder,
  listOrderRows,
  lockOrder,
  setOrderCancelled,
  setOrderPaid,
  setOrderResolved,
  type OrderRow,
} from './repository.js';

/** Closes the open sessions of an order that can no longer be paid (the sessions room's, passed in by the app). */
export type CloseOrderSessions = (tx: Queryable, orderId: string, now: Date) => Promise<void>;

/** An order as the merchant's API returns it. */
export function toOrder(row: OrderRow): Order {
  const currency = row.fiat_currency;
  return {
    id: row.id,
    status: row.status,
    url: row.url,
    reference: row.reference,
    title: row.title,
    description: row.description,
    fiatAmount: formatFiat(row.fiat_amount, currency),
    fiatCurrency: currency,
    cart: { items: row.cart_items.map((item) => ({ ...item, unitAmount: formatFiat(item.unitAmount, currency) })) },
    metadata: row.metadata ?? {},
    prepayOptions: { collectAddress: row.collect_address, collectPhone: row.collect_phone },
    postpayAction: {
      redirect: row.redirect_url !== '',
      showConfirmationPage: row.show_confirmation_page,
      successMessage: row.success_message,
      redirectUrl: row.redirect_url,
    },
    paidSessionId: row.paid_session_id,
    paidAt: row.paid_at?.toISOString() ?? null,
    cancelledAt: row.cancelled_at?.toISOString() ?? null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    refundedAmount: assetAmount(row.refunded_amount),
    resolution: row.resolution,
  };
}

/** The keyless view of `GET /v1/checkout/orders/{id}`: never the reference, metadata or customer. */
export function toPublicOrder(row: OrderRow, chain: ChainAdapter): PublicOrder {
  const order = toOrder(row);
  return {
    id: order.id,
    url: order.url,
    title: order.title,
    description: order.description,
    fiatAmount: order.fiatAmount,
    fiatCurrency: order.fiatCurrency,
    cart: order.cart,
    prepayOptions: order.prepayOptions,
    state: order.status === 'open' || order.status === 'paid' ? order.status : 'closed',
    expiresAt: order.expiresAt,
    assets: payableAssets(chain),
    sandbox: chain.sandbox,
    merchantName: row.merchant_name || null,
  };
}

/** Applies the rules to a create body (types already checked); one 400 naming every offending field. */
export function buildOrderDraft(input: OrderInput, now: Date): OrderDraft {
  const { draft, errors } = resolveOrderDraft(input, now);
  if (errors.length) throw ruleError(errors);
  return draft;
}

/** The outcome of `POST /v1/order`: the status and body to send. */
export interface OrderCreated extends StoredResponse {
  statusCode: 201;
}

/**
 * `POST /v1/order`: in one transaction, claims the `Idempotency-Key` (if any), expires an open order
 * of the same reference whose time is up (if nothing can still pay it), and records the new order.
 * While another order of the reference is open, 409 `reference_in_use` (the database's unique index
 * decides, so two creates at once make one order).
 */
export async function createOrder(
  db: Database,
  principal: Principal,
  input: z.output<typeof CreateOrderInput>,
  idempotency: IdempotencyState | undefined,
  publicUrl: string,
  now: Date,
): Promise<StoredResponse> {
  const draft = buildOrderDraft(input, now);
  // Two requests are the same one when they make the same order; a default expiry moves with the clock, so it is not part of it.
  const fingerprint = ['POST /v1/order', { ...draft, expiresAt: input.expiresAt ? draft.expiresAt.toISOString() : null }];
  return db.transaction((tx) =>
    runIdempotent(tx, idempotency, principal.integratorId, fingerprint, async (): Promise<OrderCreated> => {
      let row = await insertOrder(tx, principal.integratorId, draft, publicUrl, now);
      if (!row) {
        // The open order of this reference may be past its time with nothing left that can pay it.
        const existing = await findOpenOrderId(tx, principal.integratorId, draft.reference);
        if (existing && (await expireOrderRow(tx, existing, now))) row = await insertOrder(tx, principal.integratorId, draft, publicUrl, now);
        if (!row)
          throw new ApiError(
            409,
            'reference_in_use',
            `An open order with reference "${draft.reference}" exists${existing ? ` (${existing})` : ''}: cancel it, or wait until it is paid or expires`,
          );
      }
      return { statusCode: 201, body: { ...toOrder(row) } };
    }),
  );
}

/** The caller's order `id` (another integrator's is a 404), expired first if it is due. */
export async function getOrder(db: Database, principal: Principal, id: string, now: Date): Promise<Order> {
  return toOrder(await readOrder(db, id, now, principal.integratorId));
}

/** An order by id (of `integratorId` only, when given), expired first if it is due; else 404. */
export async function readOrder(db: Database, id: string, now: Date, integratorId?: string): Promise<OrderRow> {
  if (!isUuid(id)) throw notFound('Order');
  let row = await findOrder(db, id, integratorId);
  if (!row) throw notFound('Order');
  if (row.status === 'open' && row.expires_at.getTime() <= now.getTime() && (await db.transaction((tx) => expireOrderRow(tx, id, now))))
    row = (await findOrder(db, id, integratorId))!;
  return row;
}

/** `GET /v1/order`: the caller's orders, newest first, filtered (dates inclusive, on creation) and paged. */
export async function listOrders(db: Queryable, principal: Principal, query: z.output<typeof ListOrdersQuery>): Promise<OrderList> {
  const errors: FieldError[] = [];
  const created = creationRange(query, errors);
  if (errors.length) throw validationError(errors);
  const { rows, totalItems } = await listOrderRows(
    db,
    principal.integratorId,
    { status: query.status, reference: query.reference?.trim() || undefined, ...created },
    query,
  );
  return { items: rows.map(toOrder), meta: pageMeta(totalItems, rows.length, query) };
}

/**
 * `POST /v1/order/{id}/cancel`: an open order becomes `cancelled` and its sessions still awaiting
 * payment close (a transfer to one of them afterwards is a late payment: credited, never a payment of
 * the order). A paid order is 409 `order_paid`; a cancelled or expired one is answered as it is.
 */
export async function cancelOrder(db: Database, principal: Principal, id: string, now: Date, closeSessions: CloseOrderSessions): Promise<Order> {
  if (!isUuid(id)) throw notFound('Order');
  return db.transaction(async (tx) => {
    const row = await lockOrder(tx, id, 'update', principal.integratorId);
    if (!row) throw notFound('Order');
    if (row.status === 'paid') throw new ApiError(409, 'order_paid', 'This order is paid: it can no longer be cancelled');
    if (row.status !== 'open') return toOrder(row);
    const cancelled = await setOrderCancelled(tx, id, now);
    await closeSessions(tx, id, now);
    return toOrder(cancelled);
  });
}

/**
 * Marks the locked open order `order` paid by `sessionId`, in the transaction of the transfer that
 * settled that session, and announces `order.paid` (once: the order is never open again).
 */
export async function markOrderPaid(tx: Queryable, order: Pick<OrderRow, 'id' | 'integrator_id'>, sessionId: string, now: Date): Promise<void> {
  await setOrderPaid(tx, order.id, sessionId, now);
  await announceOrderPaid(tx, order, now);
}

/**
 * Marks the locked order `order` paid by `sessionId` because its merchant accepted that session's
 * underpaid or late payment, and announces `order.paid` (with `resolution: "merchant"`), in the
 * transaction `tx`. Only an open or expired order can be: false otherwise (nothing changed).
 */
export async function markOrderResolved(tx: Queryable, order: Pick<OrderRow, 'id' | 'integrator_id'>, sessionId: string, now: Date): Promise<boolean> {
  if (!(await setOrderResolved(tx, order.id, sessionId, now))) return false;
  await announceOrderPaid(tx, order, now);
  return true;
}

/** Announces `order.paid` in the transaction `tx` that marked `order` paid: the order as `GET /v1/order/{id}` shows it then. */
async function announceOrderPaid(tx: Queryable, order: Pick<OrderRow, 'id' | 'integrator_id'>, at: Date): Promise<void> {
  await announce(tx, [{ type: 'order.paid', id: order.id, integratorId: order.integrator_id }], at, async (id) => {
    const row = await findOrder(tx, id);
    return row && toOrder(row);
  });
}

/** Locks an order for the payment of one of its sessions (before the session's own lock: the order every path takes). */
export function lockOrderForPayment(tx: Queryable, id: string): Promise<OrderRow | undefined> {
  return lockOrder(tx, id, 'update');
}

/** Expires every open order whose time is up and that none of its sessions can still pay; returns how many. */
export async function expireDueOrders(deps: { db: Database; now: () => Date }, batch = 500): Promise<number> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => (await expireDueOrderRows(tx, now, batch)).length);
}
