/**
 * What the OpenAPI document says of each operation beyond the route table (`routes.ts`, beside it):
 * its tag, description, path and header parameters, success answer and exactly the error statuses it
 * can answer with, keyed by operation id (one entry for each operation of the table, and no other, or
 * the build fails). The generator (`server/service/openapi.ts`) adds what the table states (method,
 * path, summary, security, body, query) and the shared parts (schemas, error responses). Server-side
 * only, like the table: no browser bundle imports it.
 */
import { MAX_LENGTH, SLUG_PATTERN, UUID_PATTERN } from './rules/limits.js';
import type { OperationId } from './routes.js';

/** A fragment of the document. */
export type Json = Record<string, unknown>;

/** A reference to a named schema of `components.schemas`. */
export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** The security of a keyless operation. */
export const publicOperation: never[] = [];

// ---------------------------------------------------------------------------------------------
// Responses

/** The response (of `components.responses`) each error status an operation may answer with refers to. */
export const ERROR_RESPONSES = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'PayloadTooLarge',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  415: 'UnsupportedMediaType',
  500: 'ServerError',
  503: 'ServiceUnavailable',
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });

/** An operation's responses: its success and exactly the error statuses it can answer with. */
export function responses(success: Record<number, unknown>, errors: ErrorStatus[]) {
  return {
    ...success,
    ...Object.fromEntries(errors.map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status]}` }])),
  };
}
// ---------------------------------------------------------------------------------------------
// Parameters

const uuidParameter = (description: string) => ({
  name: 'id',
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, maxLength: 36 },
});
/** The optional `Idempotency-Key` of a keyed POST, and the header that marks a replayed answer. */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'A retry with the same key and body replays the first answer; with another body it is 409',
  schema: { type: 'string', minLength: 1, maxLength: MAX_LENGTH.idempotencyKey, pattern: '^[\\x21-\\x7e]+$' },
};
const replayedHeader = {
  'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request', schema: { type: 'string', enum: ['true'] } },
};
/** The claim token of a refund (the part of its link after `#`), on the keyless claim routes. */
const claimParameter = {
  name: 'Paylink-Claim',
  in: 'header',
  required: true,
  description:
    'The refund’s claim token: the part of its `claimUrl` after `#`. Without it 400 `claim_token_required`; a wrong one is the same 404 as an unknown refund',
  schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
};
const slugParameter = {
  name: 'slug',
  in: 'path',
  required: true,
  description: 'The link’s slug (the end of its `url`)',
  schema: { type: 'string', pattern: SLUG_PATTERN.source, maxLength: 64 },
};

/** What the service sends to an endpoint: the callback of `createWebhookEndpoint` (OpenAPI 3.0 has no `webhooks`). */
const webhookDelivery = {
  operationId: 'deliverWebhookEvent',
  summary: 'One delivery of an event to the endpoint (the service sends it; verify it with `verifyWebhook`)',
  tags: ['Webhooks'],
  security: publicOperation,
  parameters: [
    {
      name: 'Paylink-Event-Id',
      in: 'header',
      required: true,
      description: 'The event id (`evt_…`), the same on every retry',
      schema: { type: 'string', maxLength: 64 },
    },
    {
      name: 'Paylink-Signature',
      in: 'header',
      required: true,
      description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`',
      schema: { type: 'string', maxLength: 1024 },
    },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
  responses: {
    200: { description: 'Any 2xx within 10 s marks the delivery delivered' },
    400: { description: 'Any other answer (a refused signature, say), a redirect, or none within 10 s: a failed attempt, retried' },
  },
};

/** Each operation's details, by operation id. */
export const OPERATION_DETAILS: Record<OperationId, Json> = {
  createPaymentLink: {
    tags: ['Payment links'],
    parameters: [idempotencyKeyParameter],
    responses: responses({ 201: { ...json(ref('PaymentLink'), 'Created'), headers: replayedHeader } }, [400, 401, 409, 413]),
  },
  updatePaymentLink: {
    tags: ['Payment links'],
    parameters: [
      {
        name: 'id',
        in: 'query',
        required: false,
        description: 'The link, when the body does not name it',
        schema: { type: 'string', format: 'uuid', maxLength: MAX_LENGTH.id },
      },
    ],
    responses: responses({ 200: json(ref('PaymentLink'), 'The updated link') }, [400, 401, 404, 413]),
  },
  listPaymentLinks: {
    tags: ['Payment links'],
    responses: responses({ 200: json(ref('PaymentLinkList'), 'One page of links') }, [400, 401]),
  },
  getPaymentLink: {
    tags: ['Payment links'],
    parameters: [uuidParameter('The link’s id')],
    responses: responses({ 200: json(ref('PaymentLink'), 'The link') }, [401, 404]),
  },
  getPublicLink: {
    tags: ['Checkout'],
    parameters: [slugParameter],
    responses: responses({ 200: json(ref('PublicLink'), 'The link, without owner ids or counts') }, [404, 429]),
  },
  recordVisit: {
    tags: ['Checkout'],
    parameters: [slugParameter],
    responses: responses({ 200: json(ref('VisitResult'), 'Whether the visit counted') }, [400, 404, 413, 429]),
  },
  listPublicDonors: {
    description:
      'Keyless. Only paid (and overpaid) donations whose donor chose `showPublicly` at the start of the session and that the merchant has not hidden; ' +
      'each says the name and message the donor gave (null when none), the amount and currency they gave in, and when it was paid: nothing else of ' +
      'the customer. A Standard link has none.',
    tags: ['Checkout'],
    parameters: [slugParameter],
    responses: responses({ 200: json(ref('PublicDonorList'), 'The latest public donors, newest first') }, [400, 404, 429]),
  },
  startCheckoutSession: {
    description:
      'Keyless: anyone can call it with any body. A `reference` sent here is what the page says the payment is for: it is stored as the session’s ' +
      '`clientReference` and never as its `reference`, so a page can’t make its payment look like the merchant’s order. Only an order created with the ' +
      'API key (`POST /v1/order`) gives its sessions a `reference`.',
    tags: ['Checkout'],
    parameters: [slugParameter],
    responses: responses({ 201: json(ref('CheckoutSession'), 'Created') }, [400, 404, 410, 413, 422, 429, 503]),
  },
  getPublicOrder: {
    tags: ['Checkout'],
    parameters: [uuidParameter('The order’s id')],
    responses: responses({ 200: json(ref('PublicOrder'), 'The order') }, [404, 429]),
  },
  startOrderSession: {
    description:
      'The session carries the order’s `reference` and `metadata`; a `reference` sent here is what the page says and is stored as `clientReference`. ' +
      'The quote holds 15 minutes, never past the order’s `expiresAt`. 409 `order_paid` once the order is paid; 410 `order_expired` or `order_cancelled` once it can’t be.',
    tags: ['Checkout'],
    parameters: [uuidParameter('The order’s id')],
    responses: responses({ 201: json(ref('CheckoutSession'), 'Created') }, [400, 404, 409, 410, 413, 422, 429, 503]),
  },
  getCheckoutSession: {
    tags: ['Checkout'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses({ 200: json(ref('CheckoutSession'), 'The session') }, [404, 429]),
  },
  streamCheckoutSession: {
    tags: ['Checkout'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses(
      {
        200: {
          description: 'An event stream',
          content: { 'text/event-stream': { schema: { type: 'string', description: '`event: status` with `data:` a CheckoutSession' } } },
        },
      },
      [404, 429],
    ),
  },
  simulatePayment: {
    tags: ['Checkout'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses({ 200: json(ref('CheckoutSession'), 'The session after the transfer') }, [400, 404, 409, 413, 429]),
  },
  createWithdrawal: {
    description:
      'When the database’s answer is lost and whether the withdrawal was recorded cannot be learned: 503 `withdrawal_outcome_unknown`; retry with the same Idempotency-Key to get its true answer. ' +
      'An address no payout may go to is a 422 on `address`, nothing reserved: `own_deposit_address` (one of the merchant’s deposit addresses), `hot_wallet_address` (the service’s hot wallet), `token_contract_address` (a configured token’s contract).',
    tags: ['Withdrawals'],
    parameters: [idempotencyKeyParameter],
    responses: responses(
      {
        200: { ...json(ref('WithdrawalCreated'), 'Accepted: the payout runs in the background'), headers: replayedHeader },
      },
      [400, 401, 409, 413, 422],
    ),
  },
  listWithdrawals: {
    tags: ['Withdrawals'],
    responses: responses({ 200: json(ref('WithdrawalList'), 'One page of withdrawals') }, [400, 401]),
  },
  listWithdrawalNetworks: {
    tags: ['Withdrawals'],
    responses: responses({ 200: json(ref('WithdrawalNetworkList'), 'The configured networks') }, [401]),
  },
  getWithdrawal: {
    tags: ['Withdrawals'],
    parameters: [uuidParameter('The withdrawal’s id')],
    responses: responses({ 200: json(ref('Withdrawal'), 'The withdrawal') }, [401, 404]),
  },
  createOrder: {
    description:
      'While an order of the same `reference` is open, 409 `reference_in_use` (one whose time is up and that nothing can still pay is expired first). ' +
      '`expiresAt` defaults to 24 hours. `url` is the hosted page, `{paylink_url}/order/<id>`; or render `<paylink-checkout order="<id>">`.',
    tags: ['Orders'],
    parameters: [idempotencyKeyParameter],
    responses: responses(
      { 201: { ...json(ref('Order'), 'Created (or the replay of the request that created it)'), headers: replayedHeader } },
      [400, 401, 409, 413],
    ),
  },
  listOrders: {
    tags: ['Orders'],
    responses: responses({ 200: json(ref('OrderList'), 'One page of orders') }, [400, 401]),
  },
  getOrder: {
    tags: ['Orders'],
    parameters: [uuidParameter('The order’s id')],
    responses: responses({ 200: json(ref('Order'), 'The order') }, [401, 404]),
  },
  cancelOrder: {
    description: 'A paid order is 409 `order_paid`. An order already cancelled or expired is answered as it is (200), so a retried cancel is safe.',
    tags: ['Orders'],
    parameters: [uuidParameter('The order’s id')],
    responses: responses({ 200: json(ref('Order'), 'The order, cancelled') }, [401, 404, 409]),
  },
  listCheckoutSessionRecords: {
    tags: ['Payments'],
    responses: responses({ 200: json(ref('CheckoutSessionRecordList'), 'One page of sessions') }, [400, 401]),
  },
  getCheckoutSessionRecord: {
    tags: ['Payments'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses({ 200: json(ref('CheckoutSessionRecord'), 'The session') }, [401, 404]),
  },
  hideCheckoutSessionDonor: {
    description:
      'The donor leaves the link’s public donors list (`GET /v1/checkout/{slug}/donors`) for good; the gift still counts in `raised` and ' +
      '`donorCount`. Hiding a hidden donor again changes nothing (200).',
    tags: ['Payments'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses({ 200: json(ref('CheckoutSessionRecord'), 'The session, with `donorHiddenAt`') }, [401, 404]),
  },
  createWebhookEndpoint: {
    tags: ['Webhooks'],
    parameters: [idempotencyKeyParameter],
    responses: responses({ 201: { ...json(ref('WebhookEndpointCreated'), 'Created, with `secret`'), headers: replayedHeader } }, [400, 401, 409, 413]),
    callbacks: { event: { '{$request.body#/url}': { post: webhookDelivery } } },
  },
  listWebhookEndpoints: {
    tags: ['Webhooks'],
    responses: responses({ 200: json(ref('WebhookEndpointList'), 'One page of endpoints') }, [400, 401]),
  },
  updateWebhookEndpoint: {
    tags: ['Webhooks'],
    description: 'A body that names `secret` is refused (400): a secret is made by the service, with `POST /v1/webhook-endpoint/{id}/roll-secret`.',
    responses: responses({ 200: json(ref('WebhookEndpoint'), 'The updated endpoint') }, [400, 401, 404, 413]),
  },
  rollWebhookSecret: {
    tags: ['Webhooks'],
    description:
      'Makes a new signing secret and answers it, once (as the creation does). Until `previousSecretExpiresAt` (now + `expiresInHours`, default 24; 0 stops the current secret at once), ' +
      'every delivery carries a signature with each secret: `Paylink-Signature: t=…,v1=<new>,v1=<old>`, and `verifyWebhook` accepts either, so the receiver can move to the new secret meanwhile. ' +
      'A secret an earlier roll left still signing is dropped.',
    parameters: [uuidParameter('The endpoint’s id'), idempotencyKeyParameter],
    responses: responses(
      { 200: { ...json(ref('WebhookEndpointCreated'), 'The endpoint with its new `secret`'), headers: replayedHeader } },
      [400, 401, 404, 409, 413],
    ),
  },
  getWebhookEndpoint: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The endpoint’s id')],
    responses: responses({ 200: json(ref('WebhookEndpoint'), 'The endpoint') }, [401, 404]),
  },
  deleteWebhookEndpoint: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The endpoint’s id')],
    responses: responses({ 200: json(ref('WebhookEndpointDeleted'), 'Deleted') }, [401, 404]),
  },
  listWebhookDeliveries: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The endpoint’s id')],
    responses: responses({ 200: json(ref('WebhookDeliveryList'), 'One page of deliveries') }, [400, 401, 404]),
  },
  sendWebhookTestEvent: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The endpoint’s id'), idempotencyKeyParameter],
    responses: responses({ 200: { ...json(ref('WebhookDelivery'), 'The test delivery after its attempt'), headers: replayedHeader } }, [400, 401, 404, 409]),
  },
  getWebhookDelivery: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The delivery’s id')],
    responses: responses({ 200: json(ref('WebhookDelivery'), 'The delivery') }, [401, 404]),
  },
  retryWebhookDelivery: {
    tags: ['Webhooks'],
    parameters: [uuidParameter('The delivery’s id'), idempotencyKeyParameter],
    responses: responses({ 200: { ...json(ref('WebhookDelivery'), 'The delivery after the attempt'), headers: replayedHeader } }, [400, 401, 404, 409]),
  },
  getBalance: {
    tags: ['Balance'],
    responses: responses({ 200: json(ref('Balance'), 'Available and pending per asset') }, [401]),
  },
  createRefund: {
    description:
      '`amount` defaults to what the session brought in (its credited transfers, final, on the network it was paid on) less its refunds not failed or cancelled; more is 422 `refund_exceeds_payment`, ' +
      'money not final yet 422 `payment_not_final`, a session that brought nothing in 422 `nothing_to_refund`, an available balance that does not cover it 422 `insufficient_balance`, ' +
      'one of your deposit addresses 422 `own_deposit_address`. Concurrent refunds of one session are weighed one after the other. With `address`, the refund is `pending` and paid like a withdrawal; ' +
      'without, it is `awaiting_address` with a `claimUrl` (`{paylink_url}/refund/<id>#<claim token>`) to send the customer. Sends `refund.created`.',
    tags: ['Refunds'],
    parameters: [idempotencyKeyParameter],
    responses: responses(
      { 201: { ...json(ref('Refund'), 'Created (or the replay of the request that created it)'), headers: replayedHeader } },
      [400, 401, 404, 409, 413, 422],
    ),
  },
  listRefunds: {
    tags: ['Refunds'],
    responses: responses({ 200: json(ref('RefundList'), 'One page of refunds') }, [400, 401]),
  },
  getRefund: {
    tags: ['Refunds'],
    parameters: [uuidParameter('The refund’s id')],
    responses: responses({ 200: json(ref('Refund'), 'The refund') }, [401, 404]),
  },
  cancelRefund: {
    description:
      'Only while `awaiting_address`: anything else is 409 `refund_not_cancellable`. A cancelled refund is answered as it is (200), so a retried cancel is safe.',
    tags: ['Refunds'],
    parameters: [uuidParameter('The refund’s id')],
    responses: responses({ 200: json(ref('Refund'), 'The refund, cancelled') }, [401, 404, 409]),
  },
  resolveCheckoutSession: {
    description:
      'For an `underpaid` session (an open one closes: a later transfer to it is a late payment) or one paid late (`expired` with a late transfer). Its order, if any, becomes `paid` by it. ' +
      'Sends `checkout.session.resolved` and, for an order, `order.paid`, both with `resolution: "merchant"`. 409 for a session paid in full (`already_paid`), one that received nothing (`nothing_paid`), ' +
      'one still confirming (`payment_confirming`) or reversed (`payment_reversed`), or whose order was paid by another session (`order_paid`) or cancelled (`order_cancelled`). A resolved session is answered as it is.',
    tags: ['Payments'],
    parameters: [uuidParameter('The session’s id')],
    responses: responses({ 200: json(ref('CheckoutSessionRecord'), 'The session, resolved') }, [400, 401, 404, 409, 413]),
  },
  getClaimableRefund: {
    description: 'What the customer’s claim page shows. Never the merchant’s reason, reference or the session’s customer details. `Cache-Control: no-store`.',
    tags: ['Checkout'],
    parameters: [uuidParameter('The refund’s id'), claimParameter],
    responses: responses({ 200: json(ref('PublicRefund'), 'The refund') }, [400, 404, 429]),
  },
  claimRefund: {
    description:
      'Sets the address, once: a second one (even the same) is 409 `address_already_set`; a cancelled refund is 410 `refund_cancelled`; a bad address 400 (a mixed-case one must pass its EIP-55 checksum); ' +
      'one of the merchant’s deposit addresses 422 `own_deposit_address`. The refund is then `pending` and paid out.',
    tags: ['Checkout'],
    parameters: [uuidParameter('The refund’s id'), claimParameter],
    responses: responses({ 200: json(ref('PublicRefund'), 'The refund, on its way') }, [400, 404, 409, 410, 413, 422, 429]),
  },
  getRates: {
    tags: ['Rates'],
    description:
      'Each code the service prices against the US dollar (`USDT/USD`, `USD/NGN`): the value quoted now (units per dollar), or why not ' +
      '(`stale`: no fresh rate; `no_quorum`: fewer than `quorum` sources agree within `maxSpread` of their median; `held`: a move larger than ' +
      '`PAYLINK_RATES_MAX_MOVE` waits to be confirmed; `depeg`: a pegged asset is off its peg), the spread of the sources, and each source’s latest ' +
      'value, when it was fetched and whether it agrees. `pairs` says the same of every pair a session may be priced in. Read from memory.',
    responses: responses({ 200: json(ref('RatesView'), 'The rates as they stand') }, [401]),
  },
};
