/**
 * `client.links`: the integrator's payment links (`/payment-link`).
 * Every response is parsed with the wire schema the service builds it with.
 */
import { PaymentLink, PaymentLinkList, type CreatePaymentLinkInput, type LinkType, type UpdatePaymentLinkInput } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';

/** Filters and paging of `links.list`. */
export interface ListPaymentLinksParams {
  /** 1-based page number (default 1). */
  page?: number;
  /** Items per page, 1–100 (default 20). */
  limit?: number;
  linkType?: LinkType | (string & {});
  isActive?: boolean;
  /** Free-text search in the title and description. */
  q?: string;
}

/** `links.update` names the link by `id`; every other field is optional (a partial update). */
export type UpdatePaymentLinkParams = UpdatePaymentLinkInput & { id: string };

/** A link id, or an object carrying it (`{ id }`). */
export type LinkRef = string | { id: string };

export interface LinksResource {
  /** Creates a link (201). Standard and Donation links differ by `linkType`. */
  create(params: CreatePaymentLinkInput, options?: RequestOptions): Promise<PaymentLink>;
  /** Partially updates the link named by `params.id`; 404 if it is not the caller's. */
  update(params: UpdatePaymentLinkParams, options?: RequestOptions): Promise<PaymentLink>;
  /** One page of the caller's links, newest first. */
  list(params?: ListPaymentLinksParams, options?: RequestOptions): Promise<PaymentLinkList>;
  /** One link by id (`GET /payment-link/{id}/single`). */
  get(params: LinkRef, options?: RequestOptions): Promise<PaymentLink>;
}

/** Reads the id out of `'abc'` or `{ id: 'abc' }`, refusing an empty one before any request. */
export function idOf(ref: string | { id: string }, what: string): string {
  const id = typeof ref === 'string' ? ref : ref?.id;
  if (typeof id !== 'string' || id === '') throw new TypeError(`${what} needs an id`);
  return id;
}

/** `base/<id>`: the path of the one resource `ref` names, its id URL-encoded (an empty id refused before any request). */
export const pathOf = (base: string, ref: string | { id: string }, what: string) => `${base}/${encodeURIComponent(idOf(ref, what))}`;

/** A date filter as the API takes it: an ISO string as given, a `Date` as its ISO instant. */
export const isoOf = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);

export function createLinksResource(transport: Transport): LinksResource {
  return {
    create: (params, options = {}) => transport.request('POST', '/payment-link', (data) => PaymentLink.parse(data), { ...options, body: params }),
    update: (params, options = {}) => {
      idOf(params, 'links.update');
      return transport.request('PATCH', '/payment-link', (data) => PaymentLink.parse(data), { ...options, body: params });
    },
    list: (params = {}, options = {}) => transport.request('GET', '/payment-link', (data) => PaymentLinkList.parse(data), { ...options, query: { ...params } }),
    get: (params, options = {}) =>
      transport.request('GET', `${pathOf('/payment-link', params, 'links.get')}/single`, (data) => PaymentLink.parse(data), options),
  };
}
