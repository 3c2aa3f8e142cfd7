/**
 * `client.refunds`: money given back to a customer for a payment (`/refund`). Keyed: call it from your
 * back end with the API key, or from the admin through the proxy's admin routes.
 *
 * A refund with an `address` is paid out like a withdrawal; without one it awaits the customer's: its
 * `claimUrl` is a page where they connect a wallet or paste an address, to send them (by email, chat…).
 * The link's token is kept only as a digest: `claimUrl` comes back on reads made with the API key that
 * created the refund, while it awaits an address.
 *
 * Idempotency: `create` sends `Idempotency-Key` only when you pass `options.idempotencyKey`; pass your
 * own (your refund's id) to retry safely after a timeout: the service refunds once and replays the answer.
 */
import { Refund, RefundList, type CreateRefundInput, type RefundStatus } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';
import { pathOf } from './links.js';

/** Filters and paging of `refunds.list`. */
export interface ListRefundsParams {
  page?: number;
  /** 1 to 100 (default 20). */
  limit?: number;
  status?: RefundStatus;
  /** Only the refunds of this checkout session (payment). */
  sessionId?: string;
  /** Only the refunds of this order's sessions. */
  orderId?: string;
}

export interface RefundsResource {
  /**
   * Refunds a payment (201): `{sessionId, amount?, address?, reason?}`. `amount` defaults to what the
   * session brought in less its earlier refunds; more is a `PaylinkRuleError` (`refund_exceeds_payment`),
   * as is a balance that does not cover it (`insufficient_balance`).
   */
  create(params: CreateRefundInput, options?: RequestOptions): Promise<Refund>;
  /** One page of the caller's refunds, newest first. */
  list(params?: ListRefundsParams, options?: RequestOptions): Promise<RefundList>;
  /** One refund by id; `PaylinkNotFoundError` when it is not the caller's. */
  get(params: string | { id: string }, options?: RequestOptions): Promise<Refund>;
  /**
   * Cancels a refund that awaits the customer's address: its amount is back in the balance. Any other
   * status is a `PaylinkConflictError` (`refund_not_cancellable`); a cancelled refund comes back as it is.
   */
  cancel(params: string | { id: string }, options?: RequestOptions): Promise<Refund>;
}

export function createRefundsResource(transport: Transport): RefundsResource {
  return {
    create: (params, options = {}) => transport.request('POST', '/refund', (data) => Refund.parse(data), { ...options, body: params }),
    list: (params = {}, options = {}) => transport.request('GET', '/refund', (data) => RefundList.parse(data), { ...options, query: { ...params } }),
    get: (params, options = {}) => transport.request('GET', pathOf('/refund', params, 'refunds.get'), (data) => Refund.parse(data), options),
    cancel: (params, options = {}) => transport.request('POST', `${pathOf('/refund', params, 'refunds.cancel')}/cancel`, (data) => Refund.parse(data), options),
  };
}
