/**
 * `client.orders`: orders your server creates for its own cart at its own price (`/order`). Keyed:
 * call it from your back end with the API key (or from the admin through the proxy's admin routes),
 * never from a page. Render the order's checkout with `<paylink-checkout order="<id>">`, or send the
 * customer to its `url`.
 *
 * Idempotency: `create` sends `Idempotency-Key` only when you pass `options.idempotencyKey` (your order
 * id is a good one): a retry after a timeout then gets the same order back instead of a 409 for its
 * open reference; the same key with another body is a `PaylinkConflictError`.
 */
import { Order, OrderList, type CreateOrderInput, type OrderStatus } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';
import { isoOf, pathOf } from './links.js';

/** Filters and paging of `orders.list`. */
export interface ListOrdersParams {
  page?: number;
  /** 1 to 100 (default 20). */
  limit?: number;
  status?: OrderStatus;
  /** Only the orders with exactly this reference (your order id). */
  reference?: string;
  /** Created at or after: an ISO 8601 date (a whole UTC day) or time, or a Date. */
  startDate?: string | Date;
  /** Created at or before (inclusive): an ISO 8601 date (a whole UTC day) or time, or a Date. */
  endDate?: string | Date;
}

export interface OrdersResource {
  /**
   * Creates an open order (201): `{fiatAmount, fiatCurrency, reference, title?, description?, cart?,
   * metadata?, prepayOptions?, postpayAction?, expiresAt?}`. While another order of the reference is
   * open it is a `PaylinkConflictError` (`reference_in_use`). Pass `options.idempotencyKey` to retry safely.
   */
  create(params: CreateOrderInput, options?: RequestOptions): Promise<Order>;
  /** One page of the caller's orders, newest first. */
  list(params?: ListOrdersParams, options?: RequestOptions): Promise<OrderList>;
  /** One order by id; `PaylinkNotFoundError` when it is not the caller's. */
  get(params: string | { id: string }, options?: RequestOptions): Promise<Order>;
  /**
   * Cancels an open order: it can no longer be paid. A paid order is a `PaylinkConflictError`
   * (`order_paid`); an order already cancelled or expired comes back as it is.
   */
  cancel(params: string | { id: string }, options?: RequestOptions): Promise<Order>;
}

export function createOrdersResource(transport: Transport): OrdersResource {
  return {
    create: (params, options = {}) => transport.request('POST', '/order', (data) => Order.parse(data), { ...options, body: params }),
    list: (params = {}, options = {}) =>
      transport.request('GET', '/order', (data) => OrderList.parse(data), {
        ...options,
        query: { ...params, startDate: isoOf(params.startDate), endDate: isoOf(params.endDate) },
      }),
    get: (params, options = {}) => transport.request('GET', pathOf('/order', params, 'orders.get'), (data) => Order.parse(data), options),
    cancel: (params, options = {}) => transport.request('POST', `${pathOf('/order', params, 'orders.cancel')}/cancel`, (data) => Order.parse(data), options),
  };
}
