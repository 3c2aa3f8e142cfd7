/**
 * `paylink/client`: the headless client of the Paylink service, for browsers and Node.
 *
 * ```ts
 * const paylink = createPaylinkClient({ baseUrl: 'https://api.paylink.example', apiKey: process.env.PAYLINK_API_KEY });
 * const link = await paylink.links.create({ title: 'Order 42', … });
 * ```
 *
 * Where requests go (`baseUrl`): every resource path (`/payment-link`, `/order`, `/withdrawal`, `/balance`, `/rates`,
 * `/checkout-session`, `/refund`, `/webhook-endpoint`, `/webhook-delivery`, `/checkout/…`) is appended to the API root, and the API root is
 * - `baseUrl + "/v1"` when `baseUrl` is a bare origin (`https://api.paylink.example`,
 *   `http://127.0.0.1:8787`): that is the service itself;
 * - `baseUrl` as given when it has a path: a proxy's admin routes (`https://shop.example/paylink/admin`,
 *   or `/paylink/admin` in a page), a proxy's checkout routes (`/paylink`), or the service under an
 *   explicit version (`https://api.paylink.example/v1`).
 * `client.checkout` uses the same root, except that a root ending in `/admin` (a proxy's admin
 * routes) sends checkout calls to its parent (`/paylink/admin` → `/paylink/checkout/…`), which is
 * where the proxy serves them; `checkoutBaseUrl` overrides that.
 *
 * Zero Node-only imports: this module runs in browsers, Node 20+, Deno, Bun and edge runtimes.
 */
// First: zod's JIT (`new Function`) must be off before any schema is built (see the module).
import '../internal/zod-jitless.js';
import { createCheckoutApi, type CheckoutApi, type CheckoutApiOptions } from './checkout.js';
import { createTransport, type TransportOptions } from './http.js';
import { createBalanceResource, type BalanceResource } from './balance.js';
import { createRatesResource, type RatesResource } from './rates.js';
import { createLinksResource, type LinksResource } from './links.js';
import { createOrdersResource, type OrdersResource } from './orders.js';
import { createRefundsResource, type RefundsResource } from './refunds.js';
import { createSessionsResource, type SessionsResource } from './sessions.js';
import { createWebhookDeliveriesResource, createWebhookEndpointsResource, type WebhookDeliveriesResource, type WebhookEndpointsResource } from './webhooks.js';
import { createWithdrawalsResource, type WithdrawalsResource } from './withdrawals.js';

export interface PaylinkClientOptions {
  /**
   * The service origin (the client adds `/v1`), or an API root with a path used as is
   * (a proxy's `/paylink/admin`, or `https://…/v1`). See the module comment.
   */
  baseUrl: string;
  /** Sent as `X-API-KEY`. Server-side only: never give a browser an API key; browsers talk to the proxy. */
  apiKey?: string | undefined;
  /** Sent as `Authorization: Bearer …`: the proxy's admin token, from a browser or a back end. */
  token?: string | undefined;
  /** The fetch to use (defaults to the global one). Inject one in tests or to add retries/logging. */
  fetch?: typeof fetch | undefined;
  /** Fetch `credentials` mode, e.g. `'include'` to send the merchant's session cookie to its proxy. */
  credentials?: RequestCredentials | undefined;
  /** Where `client.checkout` goes, when not where the rule above puts it. Resolved by the same rule. */
  checkoutBaseUrl?: string | undefined;
  /** Options of `client.checkout` (the EventSource to stream with, the polling interval). */
  checkoutOptions?: CheckoutApiOptions | undefined;
}

export interface PaylinkClient {
  links: LinksResource;
  /** Orders your server creates for its own cart (keyed): `create`, `list`, `get`, `cancel`. */
  orders: OrdersResource;
  withdrawals: WithdrawalsResource;
  balance: BalanceResource;
  /** The exchange rates sessions are quoted with, as they stand (keyed). */
  rates: RatesResource;
  /** The merchant's payments: its checkout sessions with the customer's details (keyed); `resolve` accepts an underpaid or late one. */
  sessions: SessionsResource;
  /** Money given back for a payment (keyed): `create`, `list`, `get`, `cancel`. */
  refunds: RefundsResource;
  /** Where webhook events go: endpoints, their delivery logs and test events. */
  webhookEndpoints: WebhookEndpointsResource;
  /** One delivery: read it, or send it again. */
  webhookDeliveries: WebhookDeliveriesResource;
  /** The public checkout API: what `<paylink-checkout>` calls (`getLink`, `getOrder`, `recordVisit`, `startSession`, `startOrderSession`, `getSession`, `watchSession`, …). */
  checkout: CheckoutApi;
  /** The API root the admin resources use, after the `/v1` rule. */
  readonly baseUrl: string;
  /** The API root `checkout` uses. */
  readonly checkoutBaseUrl: string;
}

const ORIGIN = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)(.*)$/i;

/**
 * Applies the `baseUrl` rule: a bare origin gets `/v1`, anything with a path is used as is.
 * Trailing slashes are dropped. `resolveApiBase('http://localhost:8787')` → `http://localhost:8787/v1`.
 */
export function resolveApiBase(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  const match = ORIGIN.exec(trimmed);
  const path = match ? match[2] : trimmed;
  return path === '' ? `${trimmed}/v1` : trimmed;
}

/** The API root for checkout calls, given the admin API root (see the module comment). */
function checkoutBaseOf(apiBase: string): string {
  return apiBase.endsWith('/admin') ? apiBase.slice(0, -'/admin'.length) : apiBase;
}

/** Builds a client. Cheap: make one per API key / token and reuse it. */
export function createPaylinkClient(options: PaylinkClientOptions): PaylinkClient {
  if (!options || typeof options.baseUrl !== 'string') throw new TypeError('createPaylinkClient needs a baseUrl');
  const baseUrl = resolveApiBase(options.baseUrl);
  const checkoutBaseUrl = options.checkoutBaseUrl !== undefined ? resolveApiBase(options.checkoutBaseUrl) : checkoutBaseOf(baseUrl);
  const transportOptions: TransportOptions = {
    baseUrl,
    apiKey: options.apiKey,
    token: options.token,
    fetch: options.fetch,
    credentials: options.credentials,
  };
  const transport = createTransport(transportOptions);
  const checkoutTransport = checkoutBaseUrl === baseUrl ? transport : createTransport({ ...transportOptions, baseUrl: checkoutBaseUrl });
  return {
    links: createLinksResource(transport),
    orders: createOrdersResource(transport),
    withdrawals: createWithdrawalsResource(transport),
    balance: createBalanceResource(transport),
    rates: createRatesResource(transport),
    sessions: createSessionsResource(transport),
    refunds: createRefundsResource(transport),
    webhookEndpoints: createWebhookEndpointsResource(transport),
    webhookDeliveries: createWebhookDeliveriesResource(transport),
    checkout: createCheckoutApi(checkoutTransport, options.checkoutOptions),
    baseUrl,
    checkoutBaseUrl,
  };
}

export {
  PaylinkError,
  PaylinkValidationError,
  PaylinkAuthError,
  PaylinkNotFoundError,
  PaylinkConflictError,
  PaylinkGoneError,
  PaylinkRuleError,
  PaylinkRateLimitError,
  PaylinkServerError,
  PaylinkNetworkError,
  errorFromResponse,
  type FieldError,
} from './errors.js';
export { createTransport, type RequestOptions, type Transport, type TransportOptions } from './http.js';
export type { LinksResource, ListPaymentLinksParams, UpdatePaymentLinkParams, LinkRef } from './links.js';
export type { OrdersResource, ListOrdersParams } from './orders.js';
export type { WithdrawalsResource, ListWithdrawalsParams } from './withdrawals.js';
export type { BalanceResource } from './balance.js';
export type { RatesResource } from './rates.js';
export type { CheckoutSession, PublicLink, PublicOrder, SessionStatus, StartOrderSessionInput, StartSessionInput, VisitResult } from './checkout.js';
export { createCheckoutApi, TERMINAL_STATUSES, type CheckoutApi, type CheckoutApiOptions, type WatchOptions } from './checkout.js';
export type {
  Balance,
  RateBasis,
  RatesView,
  CreatePaymentLinkInput,
  CreateWithdrawalInput,
  LinkType,
  PageMeta,
  PaymentLink,
  PaymentLinkList,
  UpdatePaymentLinkInput,
  Withdrawal,
  WithdrawalCreated,
  WithdrawalList,
  WithdrawalNetwork,
  WithdrawalNetworkList,
  WithdrawalStatus,
  CheckoutSessionRecord,
  CheckoutSessionRecordList,
  CustomerDetails,
  SessionTransfer,
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEvent,
  WebhookEventType,
  CreateOrderInput,
  Order,
  OrderList,
  OrderStatus,
  CreateRefundInput,
  Refund,
  RefundList,
  RefundStatus,
  ResolveSessionInput,
} from '../core/schemas.js';
export type { SessionsResource, ListSessionsParams } from './sessions.js';
export type { RefundsResource, ListRefundsParams } from './refunds.js';
export type { WebhookEndpointsResource, WebhookDeliveriesResource, WebhookRef, ListWebhookEndpointsParams, ListWebhookDeliveriesParams } from './webhooks.js';
