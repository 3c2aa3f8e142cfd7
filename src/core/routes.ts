/**
 * The API's one route table: every operation of the service once, with its method, path, who may call
 * it, its operation id and summary, and the zod schemas of its request (query, body) and of its
 * successful answers. Everything else that lists routes derives from it and is tested against it:
 * - the service mounts exactly this table (`server/service/operations.ts`): each room exports its
 *   handlers keyed by operation id, and every entry is mounted with its handler behind what the entry
 *   implies (its `query` and `body` validated at the edge). An entry without a handler, or a handler
 *   without an entry, is a compile error; `test/core/routes.test.ts` walks the served app too;
 * - the service's keyed prefixes (`X-API-KEY`, `Cache-Control: no-store`) are the first segments of
 *   the `key` operations' paths (`server/service/app.ts`);
 * - the OpenAPI document takes its paths, methods, operation ids, summaries, security, request bodies
 *   and query parameters from here (`route-docs.ts`, beside it, adds descriptions and error statuses,
 *   keyed by operation id, and cannot name an operation the table lacks);
 * - the proxy's admin area allows exactly the `key` operations, its checkout area exactly the
 *   `public` ones (`server/proxy/routes.ts`); anything else is a 404 there;
 * - every `key` operation has a method of the headless client, which sends its method and path
 *   (`test/client/routes.test.ts`; the client writes its paths itself, see that test for why).
 *
 * Adding a resource: one entry here; one handler keyed by its operation id in its room's `routes.ts`
 * (the build fails until it exists); the operation's details keyed by the same id in `route-docs.ts`; and
 * the client method the client test then asks for. Server-side only: the browser bundles never import
 * this module (it pulls in every schema).
 */
import type { z } from 'zod';
import * as S from './schemas.js';

/** Who may call an operation: anyone (the keyless checkout API), or a caller with an `X-API-KEY`. */
export type RouteAccess = 'public' | 'key';

/** An HTTP method the API uses (HEAD is implied by GET). */
export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One operation of the API. */
export interface ApiRoute {
  /** Unique; the OpenAPI `operationId`. */
  readonly operationId: string;
  readonly method: RouteMethod;
  /** OpenAPI style, `{name}` for a path parameter, always under `/v1`. */
  readonly path: string;
  readonly auth: RouteAccess;
  /** One line, the OpenAPI `summary`. */
  readonly summary: string;
  /** A long-lived Server-Sent Events answer (the proxy counts these per client and sets no timeout). */
  readonly stream?: true;
  /** The query string the handler validates with. */
  readonly query?: z.ZodObject;
  /** The JSON body the handler validates with. */
  readonly body?: z.ZodType;
  /** The schema of each successful status's JSON answer. */
  readonly responses?: Readonly<Record<number, z.ZodType>>;
}

/** The table, in the OpenAPI document's order. */
export const API_ROUTES = [
  {
    operationId: 'createPaymentLink',
    method: 'POST',
    path: '/v1/payment-link',
    auth: 'key',
    summary: 'Create a payment link',
    body: S.CreatePaymentLinkInput,
    responses: { 201: S.PaymentLink },
  },
  {
    operationId: 'updatePaymentLink',
    method: 'PATCH',
    path: '/v1/payment-link',
    auth: 'key',
    summary: 'Update a payment link named by `id` (in the body or `?id=`)',
    body: S.UpdatePaymentLinkInput,
    responses: { 200: S.PaymentLink },
  },
  {
    operationId: 'listPaymentLinks',
    method: 'GET',
    path: '/v1/payment-link',
    auth: 'key',
    summary: 'List payment links, newest first',
    query: S.ListPaymentLinksQuery,
    responses: { 200: S.PaymentLinkList },
  },
  {
    operationId: 'getPaymentLink',
    method: 'GET',
    path: '/v1/payment-link/{id}/single',
    auth: 'key',
    summary: 'Get one payment link',
    responses: { 200: S.PaymentLink },
  },
  {
    operationId: 'getPublicLink',
    method: 'GET',
    path: '/v1/checkout/{slug}',
    auth: 'public',
    summary: 'Public view of a link',
    responses: { 200: S.PublicLink },
  },
  {
    operationId: 'recordVisit',
    method: 'POST',
    path: '/v1/checkout/{slug}/visits',
    auth: 'public',
    summary: 'Count a visit (a repeat of the same `visitId` within 30 minutes counts once)',
    body: S.RecordVisitInput,
    responses: { 200: S.VisitResult },
  },
  {
    operationId: 'listPublicDonors',
    method: 'GET',
    path: '/v1/checkout/{slug}/donors',
    auth: 'public',
    summary: 'A fundraiser’s latest public donors, newest first: the paid donations whose donors chose to be shown',
    query: S.ListPublicDonorsQuery,
    responses: { 200: S.PublicDonorList },
  },
  {
    operationId: 'startCheckoutSession',
    method: 'POST',
    path: '/v1/checkout/{slug}/sessions',
    auth: 'public',
    summary: 'Start a checkout session: a quote (at the market rate it records: `rate`, `rateSource`, `rateAt`) and an address to pay it at',
    body: S.StartSessionInput,
    responses: { 201: S.CheckoutSession },
  },
  {
    operationId: 'getPublicOrder',
    method: 'GET',
    path: '/v1/checkout/orders/{id}',
    auth: 'public',
    summary: 'Public view of an order: what the customer pays and in what (never its reference, metadata or customer)',
    responses: { 200: S.PublicOrder },
  },
  {
    operationId: 'startOrderSession',
    method: 'POST',
    path: '/v1/checkout/orders/{id}/sessions',
    auth: 'public',
    summary: 'Start a checkout session of an order, for the order’s own amount (it can’t be changed)',
    body: S.StartOrderSessionInput,
    responses: { 201: S.CheckoutSession },
  },
  {
    operationId: 'getCheckoutSession',
    method: 'GET',
    path: '/v1/checkout/sessions/{id}',
    auth: 'public',
    summary: 'Get a checkout session',
    responses: { 200: S.CheckoutSession },
  },
  {
    operationId: 'streamCheckoutSession',
    method: 'GET',
    path: '/v1/checkout/sessions/{id}/events',
    auth: 'public',
    summary: 'Server-Sent Events: one `status` event (the session as JSON) per change, until a terminal status',
    stream: true,
  },
  {
    operationId: 'simulatePayment',
    method: 'POST',
    path: '/v1/checkout/sessions/{id}/simulate-payment',
    auth: 'public',
    summary: 'Sandbox chain only: simulate an incoming transfer (404 on a real chain)',
    body: S.SimulatePaymentInput,
    responses: { 200: S.CheckoutSession },
  },
  {
    operationId: 'createWithdrawal',
    method: 'POST',
    path: '/v1/withdrawal',
    auth: 'key',
    summary: 'Create a crypto withdrawal',
    body: S.CreateWithdrawalInput,
    responses: { 200: S.WithdrawalCreated },
  },
  {
    operationId: 'listWithdrawals',
    method: 'GET',
    path: '/v1/withdrawal',
    auth: 'key',
    summary: 'List withdrawals, newest first',
    query: S.ListWithdrawalsQuery,
    responses: { 200: S.WithdrawalList },
  },
  {
    operationId: 'listWithdrawalNetworks',
    method: 'GET',
    path: '/v1/withdrawal/networks',
    auth: 'key',
    summary: 'The networks a withdrawal can use, as configured',
    responses: { 200: S.WithdrawalNetworkList },
  },
  {
    operationId: 'getWithdrawal',
    method: 'GET',
    path: '/v1/withdrawal/{id}',
    auth: 'key',
    summary: 'Get one withdrawal',
    responses: { 200: S.Withdrawal },
  },
  {
    operationId: 'createOrder',
    method: 'POST',
    path: '/v1/order',
    auth: 'key',
    summary: 'Create an order: your price for your cart, named by your reference',
    body: S.CreateOrderInput,
    responses: { 201: S.Order },
  },
  {
    operationId: 'listOrders',
    method: 'GET',
    path: '/v1/order',
    auth: 'key',
    summary: 'List orders, newest first',
    query: S.ListOrdersQuery,
    responses: { 200: S.OrderList },
  },
  {
    operationId: 'getOrder',
    method: 'GET',
    path: '/v1/order/{id}',
    auth: 'key',
    summary: 'Get one order',
    responses: { 200: S.Order },
  },
  {
    operationId: 'cancelOrder',
    method: 'POST',
    path: '/v1/order/{id}/cancel',
    auth: 'key',
    summary: 'Cancel an open order: its sessions awaiting payment close (a later transfer to one is a late payment)',
    responses: { 200: S.Order },
  },
  {
    operationId: 'listCheckoutSessionRecords',
    method: 'GET',
    path: '/v1/checkout-session',
    auth: 'key',
    summary: 'List the merchant’s checkout sessions (its payments), newest first',
    query: S.ListCheckoutSessionsQuery,
    responses: { 200: S.CheckoutSessionRecordList },
  },
  {
    operationId: 'getCheckoutSessionRecord',
    method: 'GET',
    path: '/v1/checkout-session/{id}',
    auth: 'key',
    summary: 'Get one checkout session with its transfers, reference, metadata and customer details',
    responses: { 200: S.CheckoutSessionRecord },
  },
  {
    operationId: 'hideCheckoutSessionDonor',
    method: 'POST',
    path: '/v1/checkout-session/{id}/hide-donor',
    auth: 'key',
    summary: 'Hide a donor from the link’s public page (its name, message and amount leave the donors list)',
    responses: { 200: S.CheckoutSessionRecord },
  },
  {
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    path: '/v1/webhook-endpoint',
    auth: 'key',
    summary: 'Add a webhook endpoint; the answer carries its signing secret, shown only here',
    body: S.CreateWebhookEndpointInput,
    responses: { 201: S.WebhookEndpointCreated },
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    path: '/v1/webhook-endpoint',
    auth: 'key',
    summary: 'List webhook endpoints, newest first',
    query: S.ListWebhookEndpointsQuery,
    responses: { 200: S.WebhookEndpointList },
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: '/v1/webhook-endpoint',
    auth: 'key',
    summary: 'Change the endpoint named by `id`: its url, events, description or isActive (its secret is rolled, not set)',
    body: S.UpdateWebhookEndpointInput,
    responses: { 200: S.WebhookEndpoint },
  },
  {
    operationId: 'rollWebhookSecret',
    method: 'POST',
    path: '/v1/webhook-endpoint/{id}/roll-secret',
    auth: 'key',
    summary:
      'Give the endpoint a new signing secret, shown only in this answer; the current one keeps signing every delivery beside it for `expiresInHours` (default 24)',
    body: S.RollWebhookSecretInput,
    responses: { 200: S.WebhookEndpointCreated },
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'GET',
    path: '/v1/webhook-endpoint/{id}',
    auth: 'key',
    summary: 'Get one webhook endpoint (never its secret)',
    responses: { 200: S.WebhookEndpoint },
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/v1/webhook-endpoint/{id}',
    auth: 'key',
    summary: 'Delete a webhook endpoint, its pending deliveries and its log',
    responses: { 200: S.WebhookEndpointDeleted },
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhook-endpoint/{id}/deliveries',
    auth: 'key',
    summary: 'The endpoint’s delivery log, newest first: attempts, status codes, errors, next retry',
    query: S.ListWebhookDeliveriesQuery,
    responses: { 200: S.WebhookDeliveryList },
  },
  {
    operationId: 'sendWebhookTestEvent',
    method: 'POST',
    path: '/v1/webhook-endpoint/{id}/test',
    auth: 'key',
    summary: 'Send a `webhook.test` event to the endpoint now (even an inactive one); answers with its delivery after that attempt (not retried on its own)',
    responses: { 200: S.WebhookDelivery },
  },
  {
    operationId: 'getWebhookDelivery',
    method: 'GET',
    path: '/v1/webhook-delivery/{id}',
    auth: 'key',
    summary: 'Get one delivery and its attempts',
    responses: { 200: S.WebhookDelivery },
  },
  {
    operationId: 'retryWebhookDelivery',
    method: 'POST',
    path: '/v1/webhook-delivery/{id}/retry',
    auth: 'key',
    summary: 'Send the delivery’s event again now (same event id, new signature), whatever its status; answers with the delivery after that attempt',
    responses: { 200: S.WebhookDelivery },
  },
  {
    operationId: 'getBalance',
    method: 'GET',
    path: '/v1/balance',
    auth: 'key',
    summary: 'Balances per asset',
    responses: { 200: S.Balance },
  },
  {
    operationId: 'createRefund',
    method: 'POST',
    path: '/v1/refund',
    auth: 'key',
    summary: 'Refund a payment, in full or in part: to an address, or through a claim link the customer opens',
    body: S.CreateRefundInput,
    responses: { 201: S.Refund },
  },
  {
    operationId: 'listRefunds',
    method: 'GET',
    path: '/v1/refund',
    auth: 'key',
    summary: 'List refunds, newest first',
    query: S.ListRefundsQuery,
    responses: { 200: S.RefundList },
  },
  {
    operationId: 'getRefund',
    method: 'GET',
    path: '/v1/refund/{id}',
    auth: 'key',
    summary: 'Get one refund',
    responses: { 200: S.Refund },
  },
  {
    operationId: 'cancelRefund',
    method: 'POST',
    path: '/v1/refund/{id}/cancel',
    auth: 'key',
    summary: 'Cancel a refund that awaits the customer’s address: its amount is back in the balance',
    responses: { 200: S.Refund },
  },
  {
    operationId: 'resolveCheckoutSession',
    method: 'POST',
    path: '/v1/checkout-session/{id}/resolve',
    auth: 'key',
    summary: 'Accept an underpaid or late-paid session as paid: its order (if any) becomes paid',
    body: S.ResolveSessionInput,
    responses: { 200: S.CheckoutSessionRecord },
  },
  {
    operationId: 'getClaimableRefund',
    method: 'GET',
    path: '/v1/checkout/refunds/{id}',
    auth: 'public',
    summary: 'The customer’s view of a refund, with its claim token in `Paylink-Claim`',
    responses: { 200: S.PublicRefund },
  },
  {
    operationId: 'claimRefund',
    method: 'POST',
    path: '/v1/checkout/refunds/{id}/address',
    auth: 'public',
    summary: 'The customer gives the address a refund is paid to (once), with its claim token in `Paylink-Claim`',
    body: S.ClaimRefundInput,
    responses: { 200: S.PublicRefund },
  },
  {
    operationId: 'getRates',
    method: 'GET',
    path: '/v1/rates',
    auth: 'key',
    summary: 'The exchange rates as they stand: per code each source’s value and age, the spread, and whether it is quoted or why not',
    responses: { 200: S.RatesView },
  },
] as const satisfies readonly ApiRoute[];

/** The operation ids of the table. */
export type OperationId = (typeof API_ROUTES)[number]['operationId'];

/** The table's entry of one operation, with its schemas' own types. */
export type RouteOf<Id extends OperationId> = Extract<(typeof API_ROUTES)[number], { readonly operationId: Id }>;

/** `colonPath` on types: `'/v1/order/{id}/cancel'` → `'/v1/order/:id/cancel'`, so a handler's `c.req.param('id')` is typed. */
export type ColonPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${ColonPath<Tail>}` : P;

/** `/v1/order/{id}/cancel` → `/v1/order/:id/cancel` (the form Hono and the proxy's router match). */
export function colonPath<P extends string>(path: P): ColonPath<P> {
  return path.replace(/\{(\w+)\}/g, ':$1') as ColonPath<P>;
}
