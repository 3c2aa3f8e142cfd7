/**
 * `client.sessions`: the merchant's payments, i.e. its links' checkout sessions, with what the
 * customer entered (`/checkout-session`). Keyed: call it from a back end with the API key,
 * or from the admin through the proxy's admin routes. The keyless `client.checkout.getSession` never
 * carries the customer's details; this does.
 */
import { CheckoutSessionRecord, CheckoutSessionRecordList, type ResolveSessionInput, type SessionStatus } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';
import { isoOf, pathOf } from './links.js';

/** Filters and paging of `sessions.list`. */
export interface ListSessionsParams {
  page?: number;
  /** 1 to 100 (default 20). */
  limit?: number;
  /** Only this link's sessions. */
  linkId?: string;
  status?: SessionStatus;
  /** Only the sessions with exactly this reference (your order id). */
  reference?: string;
  /** Created at or after: an ISO 8601 date (a whole UTC day) or time, or a Date. */
  startDate?: string | Date;
  /** Created at or before (inclusive): an ISO 8601 date (a whole UTC day) or time, or a Date. */
  endDate?: string | Date;
}

export interface SessionsResource {
  /** One page of the caller's checkout sessions, newest first. */
  list(params?: ListSessionsParams, options?: RequestOptions): Promise<CheckoutSessionRecordList>;
  /** One session with its transfers, reference, metadata and customer details; 404 when it is not the caller's. */
  get(params: string | { id: string }, options?: RequestOptions): Promise<CheckoutSessionRecord>;
  /** Hides a donation's donor from its link's public donors list (the gift still counts); answers the session. */
  hideDonor(params: string | { id: string }, options?: RequestOptions): Promise<CheckoutSessionRecord>;
  /**
   * Accepts an underpaid or late-paid session as paid (`resolution: "merchant"`): its order, if any,
   * becomes paid. A session paid in full, or one that received nothing, is a `PaylinkConflictError`.
   */
  resolve(params: string | ({ id: string } & ResolveSessionInput), options?: RequestOptions): Promise<CheckoutSessionRecord>;
}

export function createSessionsResource(transport: Transport): SessionsResource {
  return {
    list: (params = {}, options = {}) =>
      transport.request('GET', '/checkout-session', (data) => CheckoutSessionRecordList.parse(data), {
        ...options,
        query: { ...params, startDate: isoOf(params.startDate), endDate: isoOf(params.endDate) },
      }),
    get: (params, options = {}) =>
      transport.request('GET', pathOf('/checkout-session', params, 'sessions.get'), (data) => CheckoutSessionRecord.parse(data), options),
    hideDonor: (params, options = {}) =>
      transport.request(
        'POST',
        `${pathOf('/checkout-session', params, 'sessions.hideDonor')}/hide-donor`,
        (data) => CheckoutSessionRecord.parse(data),
        options,
      ),
    resolve: (params, options = {}) =>
      transport.request('POST', `${pathOf('/checkout-session', params, 'sessions.resolve')}/resolve`, (data) => CheckoutSessionRecord.parse(data), {
        ...options,
        body: typeof params === 'string' || params.reason === undefined ? {} : { reason: params.reason },
      }),
  };
}
