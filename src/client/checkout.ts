/**
 * The `checkout` resource: the keyless public API a customer's browser calls.
 * Paths are relative to the transport's base: `https://host/v1` when talking to the service,
 * or the proxy base (`/paylink`) from a page. Responses are parsed with the zod-free parsers of
 * `core/public-parse.ts`, so this file pulls in no zod. (`<paylink-checkout>` makes the same calls
 * through its own lighter `components/checkout/checkout-api.ts`, for its 15 kB budget.)
 */
import { parseCheckoutSession, parsePublicDonorList, parsePublicLink, parsePublicOrder, parseVisitResult } from '../core/public-parse.js';
import { TERMINAL_STATUSES } from '../core/rules/session.js';
import type {
  CheckoutSession,
  PublicDonor,
  PublicDonorList,
  PublicLink,
  PublicOrder,
  SessionStatus,
  StartOrderSessionInput,
  StartSessionInput,
  VisitResult,
} from '../core/schemas.js';
import type { PaylinkError } from './errors.js';
import type { RequestOptions, Transport } from './http.js';

export type { CheckoutSession, PublicDonor, PublicDonorList, PublicLink, PublicOrder, SessionStatus, StartOrderSessionInput, StartSessionInput, VisitResult };

/** Statuses after which a session never changes again (defined once, in `core/rules/session.ts`). */
export { TERMINAL_STATUSES };

export interface WatchOptions {
  /** Stops watching when aborted. */
  signal?: AbortSignal;
  /** Told about failures while polling (watching goes on, except after a 404). */
  onError?: (error: unknown) => void;
}

export interface CheckoutApiOptions {
  /**
   * The EventSource to stream status with; `null` to always poll. Defaults to the global one, except
   * when the transport has an injected `fetch`: an EventSource can't go through it, so a caller
   * that routes traffic through its own fetch gets polling, through that fetch.
   */
  EventSource?: typeof EventSource | null;
  /** Milliseconds between polls when there is no stream (default 2000). */
  pollInterval?: number;
}

export interface CheckoutApi {
  /** The public view of a link. 404 (`PaylinkNotFoundError`) when there is no such slug. */
  getLink(slug: string, options?: RequestOptions): Promise<PublicLink>;
  /** Counts one visit; send back the returned `visitId` on reloads so they count once. */
  recordVisit(slug: string, params?: { visitId?: string | undefined }, options?: RequestOptions): Promise<VisitResult>;
  /**
   * The latest paid donations of a fundraiser whose donors chose to be shown, newest first (`limit`
   * 1–50, default 10): each donor's name, message, amount, currency and when it was paid, nothing else.
   */
  listDonors(slug: string, params?: { limit?: number | undefined }, options?: RequestOptions): Promise<PublicDonorList>;
  /** Starts a payment: a quote in `assetId` and an address to pay to. */
  startSession(slug: string, input: StartSessionInput, options?: RequestOptions): Promise<CheckoutSession>;
  /** The public view of an order (no reference, metadata or customer). 404 (`PaylinkNotFoundError`) when there is none. */
  getOrder(id: string, options?: RequestOptions): Promise<PublicOrder>;
  /**
   * Starts a payment of an order, for the order's own amount. `PaylinkConflictError` (`order_paid`) once
   * it is paid, `PaylinkGoneError` (`order_expired`, `order_cancelled`) once it can't be.
   */
  startOrderSession(id: string, input: StartOrderSessionInput, options?: RequestOptions): Promise<CheckoutSession>;
  getSession(id: string, options?: RequestOptions): Promise<CheckoutSession>;
  /**
   * Calls `onUpdate` with the session now and on every change, over Server-Sent Events, falling
   * back to polling when EventSource is missing or fails. Stops by itself once the status is
   * terminal (`paid`, `overpaid`, `expired`). Returns a function that stops watching.
   */
  watchSession(id: string, onUpdate: (session: CheckoutSession) => void, options?: WatchOptions): () => void;
  /** Sandbox chain only: pays `amount` (default: the whole `cryptoAmount`) into the session. */
  simulatePayment(id: string, params?: { amount?: string | undefined }, options?: RequestOptions): Promise<CheckoutSession>;
}

/** Builds the checkout resource on a transport (`createTransport` from `./http.js`). */
export function createCheckoutApi(transport: Transport, apiOptions: CheckoutApiOptions = {}): CheckoutApi {
  const slugPath = (slug: string) => `/checkout/${encodeURIComponent(slug)}`;
  const sessionPath = (id: string) => `/checkout/sessions/${encodeURIComponent(id)}`;
  const orderPath = (id: string) => `/checkout/orders/${encodeURIComponent(id)}`;
  const getSession = (id: string, options?: RequestOptions) => transport.request('GET', sessionPath(id), parseCheckoutSession, options);

  return {
    getLink: (slug, options) => transport.request('GET', slugPath(slug), parsePublicLink, options),
    recordVisit: (slug, params = {}, options) =>
      transport.request('POST', `${slugPath(slug)}/visits`, parseVisitResult, { ...options, body: { visitId: params.visitId } }),
    listDonors: (slug, params = {}, options) =>
      transport.request('GET', `${slugPath(slug)}/donors`, parsePublicDonorList, { ...options, query: { limit: params.limit } }),
    startSession: (slug, input, options) => transport.request('POST', `${slugPath(slug)}/sessions`, parseCheckoutSession, { ...options, body: input }),
    getOrder: (id, options) => transport.request('GET', orderPath(id), parsePublicOrder, options),
    startOrderSession: (id, input, options) => transport.request('POST', `${orderPath(id)}/sessions`, parseCheckoutSession, { ...options, body: input }),
    getSession,
    simulatePayment: (id, params = {}, options) =>
      transport.request('POST', `${sessionPath(id)}/simulate-payment`, parseCheckoutSession, { ...options, body: { amount: params.amount } }),

    watchSession(id, onUpdate, { signal, onError } = {}) {
      const Source = apiOptions.EventSource !== undefined ? apiOptions.EventSource : transport.options.fetch ? null : globalThis.EventSource;
      let stopped = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let source: EventSource | undefined;

      const stop = () => {
        stopped = true;
        clearTimeout(timer);
        source?.close();
      };
      const deliver = (session: CheckoutSession) => {
        if (stopped) return;
        onUpdate(session);
        if (TERMINAL_STATUSES.has(session.status)) stop();
      };
      const poll = async () => {
        try {
          deliver(await getSession(id, { signal }));
        } catch (error) {
          if (stopped || signal?.aborted) return;
          onError?.(error);
          if ((error as PaylinkError).status == 404) return stop();
        }
        if (!stopped) timer = setTimeout(poll, apiOptions.pollInterval ?? 2000);
      };

      if (signal?.aborted) return stop;
      signal?.addEventListener('abort', stop);
      if (Source) {
        source = new Source(transport.url(`${sessionPath(id)}/events`), {
          withCredentials: transport.options.credentials === 'include',
        });
        source.addEventListener('status', (event) => {
          try {
            deliver(parseCheckoutSession(JSON.parse((event as MessageEvent<string>).data)));
          } catch (error) {
            onError?.(error);
          }
        });
        // EventSource would retry on its own, silently; polling is predictable and goes through
        // the same transport, so a failed stream hands over to it for good.
        source.onerror = () => {
          source?.close();
          if (!stopped) void poll();
        };
      } else {
        void poll();
      }
      return stop;
    },
  };
}
