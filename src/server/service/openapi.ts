/**
 * `GET /v1/openapi.json`, generated from the zod schemas that validate requests and shape responses
 * (`core/schemas.ts`, whose limits come from `core/rules/limits.ts`). Named schemas are reusable
 * `components.schemas`; each operation lists only the error statuses it can answer with, every
 * one of them the one error shape. `npm test` lints the document with Redocly's recommended rules
 * (scripts/lint-openapi.ts).
 */
import { z } from 'zod';
import { MAX_COUNT, MAX_LENGTH, SLUG_PATTERN, UUID_PATTERN } from '../../core/rules/limits.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventTypeName } from '../../core/rules/webhooks.js';
import { API_ROUTES, type ApiRoute, type OperationId } from '../../core/routes.js';
import * as S from '../../core/schemas.js';
import { LIMIT_DEFAULTS } from '../limits/options.js';

/** What each event type says, for the document (every type of the one list, `WEBHOOK_EVENT_TYPES`). */
const WEBHOOK_EVENT_NOTES: Record<WebhookEventTypeName, string> = {
  'checkout.session.paid': 'paid or overpaid, at its confirmations: its funds may still be taken back until final',
  'checkout.session.underpaid': 'a transfer left it short',
  'checkout.session.expired': 'its quote ran out before it was paid',
  'checkout.session.finalized': 'the money of a paid session is final: every transfer counted toward it is in a final block, its funds available',
  'checkout.session.resolved': 'the merchant accepted an underpaid or late-paid session as paid',
  'payment.late': 'a transfer after expiry or after settlement: credited, not counted toward the session',
  'order.paid': 'once per order',
  'payment.reversed': 'a credit was taken back by a reorganization of the chain: its funds left the balance',
  'refund.created': 'a refund was created',
  'refund.succeeded': 'a refund was paid out',
  'refund.failed': 'a refund failed, its amount back in the balance',
  'withdrawal.succeeded': 'its payout went out',
  'withdrawal.failed': 'it failed, its funds back in the balance',
  'reconciliation.mismatch': 'a deposit address holds what the ledger cannot explain',
};

type Json = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Request bodies (generated as zod's input) and everything a response carries (its output). */
const REQUEST_SCHEMAS = {
  CreatePaymentLinkInput: S.CreatePaymentLinkInput,
  UpdatePaymentLinkInput: S.UpdatePaymentLinkInput,
  RecordVisitInput: S.RecordVisitInput,
  StartSessionInput: S.StartSessionInput,
  SimulatePaymentInput: S.SimulatePaymentInput,
  CreateWithdrawalInput: S.CreateWithdrawalInput,
  CreateWebhookEndpointInput: S.CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput: S.UpdateWebhookEndpointInput,
  RollWebhookSecretInput: S.RollWebhookSecretInput,
  CreateOrderInput: S.CreateOrderInput,
  StartOrderSessionInput: S.StartOrderSessionInput,
  CreateRefundInput: S.CreateRefundInput,
  ResolveSessionInput: S.ResolveSessionInput,
  ClaimRefundInput: S.ClaimRefundInput,
} satisfies Record<string, z.ZodType>;
const RESPONSE_SCHEMAS: Record<string, z.ZodType> = {
  LinkType: S.LinkType,
  AssetId: S.AssetIdSchema,
  SessionStatus: S.SessionStatus,
  WithdrawalStatus: S.WithdrawalStatus,
  LinkState: S.LinkState,
  PageMeta: S.PageMeta,
  CartItem: S.CartItem,
  PrepayOptions: S.PrepayOptions,
  PostpayAction: S.PostpayAction,
  PaymentLink: S.PaymentLink,
  PaymentLinkList: S.PaymentLinkList,
  CheckoutAsset: S.CheckoutAsset,
  PublicLink: S.PublicLink,
  PublicDonor: S.PublicDonor,
  PublicDonorList: S.PublicDonorList,
  VisitResult: S.VisitResult,
  CheckoutSession: S.CheckoutSession,
  WithdrawalCreated: S.WithdrawalCreated,
  Withdrawal: S.Withdrawal,
  WithdrawalList: S.WithdrawalList,
  WithdrawalNetwork: S.WithdrawalNetwork,
  WithdrawalNetworkList: S.WithdrawalNetworkList,
  BalanceItem: S.BalanceItem,
  Balance: S.Balance,
  RatesView: S.RatesView,
  SessionTransfer: S.SessionTransfer,
  CustomerDetails: S.CustomerDetails,
  CheckoutSessionRecord: S.CheckoutSessionRecord,
  CheckoutSessionRecordList: S.CheckoutSessionRecordList,
  WebhookEventType: S.WebhookEventType,
  WebhookEndpoint: S.WebhookEndpoint,
  WebhookEndpointCreated: S.WebhookEndpointCreated,
  WebhookEndpointList: S.WebhookEndpointList,
  WebhookEndpointDeleted: S.WebhookEndpointDeleted,
  WebhookDeliveryStatus: S.WebhookDeliveryStatus,
  WebhookAttempt: S.WebhookAttempt,
  WebhookDelivery: S.WebhookDelivery,
  WebhookDeliveryList: S.WebhookDeliveryList,
  ReconciliationMismatch: S.ReconciliationMismatch,
  WebhookTestObject: S.WebhookTestObject,
  WebhookEvent: S.WebhookEvent,
  OrderStatus: S.OrderStatus,
  Order: S.Order,
  OrderList: S.OrderList,
  OrderState: S.OrderState,
  PublicOrder: S.PublicOrder,
  Resolution: S.Resolution,
  RefundStatus: S.RefundStatus,
  Refund: S.Refund,
  RefundList: S.RefundList,
  PublicRefund: S.PublicRefund,
  FieldError: S.FieldError,
  ErrorBody: S.ErrorBody,
};

/** Drops what OpenAPI 3.0 has no use for, and the closedness of responses (new fields may appear). */
function clean(schema: unknown, closed: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => clean(item, closed));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === 'additionalProperties' && value === false && !closed) continue;
    out[key] = clean(value, closed);
  }
  return out;
}

/**
 * OpenAPI 3.0 needs a `type` beside `nullable`: zod writes a nullable reference as
 * `{nullable, allOf: [$ref]}` (here `anyOf: [$ref, null]`) and a nullable union as `{nullable, anyOf}`
 * (the nullability moves into each branch); a nullable enum names null among its values.
 */
function typeNullables(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => typeNullables(item, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, typeNullables(value, components)])) as Json;
  // An `enum` is checked before `nullable` (OpenAPI 3.0.3): a nullable enum lists null among its values.
  if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) return { ...node, enum: [...node.enum, null] };
  if (node.nullable !== true || 'type' in node) return node;
  const { nullable: _, ...rest } = node;
  if (Array.isArray(rest.anyOf)) return { ...rest, anyOf: rest.anyOf.map((branch: Json) => ('type' in branch ? { ...branch, nullable: true } : branch)) };
  const target = Array.isArray(rest.allOf) && (rest.allOf[0] as Json | undefined)?.$ref;
  const type = typeof target === 'string' ? (components[target.split('/').at(-1)!] as Json | undefined)?.type : undefined;
  if (!type) return node;
  // `nullable` beside `allOf` admits null to that schema only, and the referenced one still refuses
  // it (OpenAPI 3.0.3): null is a branch of its own, the one value of a nullable schema of that type.
  const { allOf, ...annotations } = rest;
  return { ...annotations, anyOf: [...(allOf as Json[]), { type, nullable: true, enum: [null] }] };
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * Bounds that hold by construction but that zod's output schemas do not say: an integer's width
 * (`int32` when its range fits, else `int64`), the length of a uuid (36) and of a time the service
 * writes (`toISOString()`: 24 characters, 27 for a six-digit year), and a page of a list (`items` beside
 * `meta`), which never holds more than the largest page size.
 */
function bounded(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bounded);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, bounded(value)])) as Json;
  if (node.type === 'integer' && !node.format) {
    const fits = Math.abs(Number(node.minimum ?? -Infinity)) <= INT32_MAX && Math.abs(Number(node.maximum ?? Infinity)) <= INT32_MAX;
    node.format = fits ? 'int32' : 'int64';
  }
  if (node.type === 'string' && node.maxLength === undefined && (node.format === 'uuid' || node.format === 'date-time'))
    node.maxLength = node.format === 'uuid' ? 36 : 30;
  const properties = node.properties as Json | undefined;
  if (properties?.meta && (properties.items as Json | undefined)?.type === 'array')
    properties.items = { maxItems: MAX_COUNT.pageSize, ...(properties.items as Json) };
  return node;
}

function componentSchemas(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, { target: 'openapi-3.0', io, uri: (id) => ref(id).$ref });
  return bounded(clean(generated.schemas, io === 'input')) as Record<string, unknown>;
}

/** The reusable schemas of responses (`components.schemas`). */
function responseSchemas(): Record<string, unknown> {
  const schemas = componentSchemas(RESPONSE_SCHEMAS, 'output');
  return typeNullables(schemas, schemas) as Record<string, unknown>;
}

/**
 * The request bodies, each used by one operation and written inline there (so a reader of the
 * operation sees its fields; what they share, such as `AssetId`, is still a reference).
 */
function requestSchemas(): Record<string, Json> {
  const schemas = componentSchemas(REQUEST_SCHEMAS, 'input');
  return typeNullables(schemas, schemas) as Record<string, Json>;
}

// ---------------------------------------------------------------------------------------------
// Responses

const ERRORS = {
  400: ['BadRequest', 'The request is not valid: `errors` names each offending field'],
  401: ['Unauthorized', 'No `X-API-KEY`, or one that is unknown or revoked'],
  404: ['NotFound', 'No such resource (or not the caller’s)'],
  409: ['Conflict', 'The request conflicts with an earlier one (a reused Idempotency-Key, a payment already made)'],
  410: ['Gone', 'The donation is closed, or the order expired or was cancelled'],
  413: ['PayloadTooLarge', `The request body is larger than ${LIMIT_DEFAULTS.maxBodyBytes / 1024} KiB`],
  422: ['Unprocessable', 'A business rule refused the request (e.g. insufficient balance, an inactive link)'],
  429: ['TooManyRequests', 'Too many requests from this client: retry after `Retry-After` seconds'],
  415: ['UnsupportedMediaType', 'The request body is not JSON (`Content-Type: application/json`)'],
  500: ['ServerError', 'The service failed unexpectedly (never for bad input); nothing was half done'],
  503: ['ServiceUnavailable', 'Too many connections or requests in progress (from this client, or in all), or `rate_unavailable`: no exchange rate fresher than `PAYLINK_RATES_MAX_AGE_S` for the pair (sessions already quoted keep their quote); retry after `Retry-After` seconds'],
} as const;
type ErrorStatus = keyof typeof ERRORS;

function errorResponses(): Record<string, unknown> {
  const content = { 'application/json': { schema: ref('ErrorBody') } };
  return Object.fromEntries(
    Object.values(ERRORS).map(([name, description]) => [
      name,
      {
        description,
        content,
        ...(name === 'TooManyRequests' || name === 'ServiceUnavailable'
          ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', format: 'int32', minimum: 0 } } } }
          : {}),
      },
    ]),
  );
}

const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });

/** An operation's responses: its success and exactly the error statuses it can answer with. */
function responses(success: Record<number, unknown>, errors: ErrorStatus[]) {
  return {
    ...success,
    ...Object.fromEntries(errors.map((status) => [status, { $ref: `#/components/responses/${ERRORS[status][0]}` }])),
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
const replayedHeader = { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request', schema: { type: 'string', enum: ['true'] } } };
/** The claim token of a refund (the part of its link after `#`), on the keyless claim routes. */
const claimParameter = {
  name: 'Paylink-Claim',
  in: 'header',
  required: true,
  description: 'The refund’s claim token: the part of its `claimUrl` after `#`. Without it 400 `claim_token_required`; a wrong one is the same 404 as an unknown refund',
  schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
};
const slugParameter = {
  name: 'slug',
  in: 'path',
  required: true,
  description: 'The link’s slug (the end of its `url`)',
  schema: { type: 'string', pattern: SLUG_PATTERN.source, maxLength: 64 },
};

function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => {
    const generated = clean(z.toJSONSchema(field as z.ZodType, { target: 'openapi-3.0', io: 'input' }), false) as Json;
    const { description, ...fieldSchema } = generated;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: bounded(fieldSchema) };
  });
}

let requests: Record<string, Json> | undefined;
const REQUEST_IDS = new Map<z.ZodType, string>(Object.entries(REQUEST_SCHEMAS).map(([id, schema]) => [schema, id]));
/** The request body of `schema`, which must be one of `REQUEST_SCHEMAS`. */
function body(schema: z.ZodType) {
  const id = REQUEST_IDS.get(schema);
  if (!id) throw new Error('a request body schema of the route table is missing from REQUEST_SCHEMAS');
  return { required: true, content: { 'application/json': { schema: (requests ??= requestSchemas())[id] } } };
}
const keyed = [{ apiKey: [] }];
const publicOperation: never[] = [];

/** What the service sends to an endpoint: the callback of `createWebhookEndpoint` (OpenAPI 3.0 has no `webhooks`). */
const webhookDelivery = {
  operationId: 'deliverWebhookEvent',
  summary: 'One delivery of an event to the endpoint (the service sends it; verify it with `verifyWebhook`)',
  tags: ['Webhooks'],
  security: publicOperation,
  parameters: [
    { name: 'Paylink-Event-Id', in: 'header', required: true, description: 'The event id (`evt_…`), the same on every retry', schema: { type: 'string', maxLength: 64 } },
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

/**
 * What any operation can meet besides its own errors: 500 and 503 (the connection and in-flight caps
 * answer before any route), and 415 on every operation that takes a body (a body that is not JSON).
 */
function withCommonErrors(paths: Record<string, Record<string, Json>>): Record<string, Record<string, Json>> {
  for (const item of Object.values(paths))
    for (const operation of Object.values(item)) {
      const statuses: ErrorStatus[] = [...(operation.requestBody ? [415 as const] : []), 500, 503];
      Object.assign(operation.responses as Json, responses({}, statuses));
    }
  return paths;
}

/**
 * The document's paths: one operation per route of the table, whose method, path, id, summary,
 * security, request body and query parameters come from the table; `details` adds the rest (tags,
 * other parameters, descriptions, responses) by operation id, one entry for each operation and no other.
 */
function pathsOf(details: Record<OperationId, Json>): Record<string, Record<string, Json>> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of API_ROUTES as readonly ApiRoute[]) {
    const { parameters = [], ...detail } = details[route.operationId as OperationId] as Json & { parameters?: unknown[] };
    const allParameters = [...parameters, ...(route.query ? queryParameters(route.query) : [])];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      security: route.auth === 'key' ? keyed : publicOperation,
      ...(allParameters.length ? { parameters: allParameters } : {}),
      ...(route.body ? { requestBody: body(route.body) } : {}),
      ...detail,
    };
  }
  return paths;
}

let cached: object | undefined;

/** The OpenAPI 3.0 document of the service (built once). */
export function openApiDocument(): object {
  cached ??= {
    openapi: '3.0.3',
    info: {
      title: 'Paylink: Payment Link and Crypto Withdrawal Service',
      version: '1.0.0',
      description:
        'Payment links (Standard and Donation), their keyless public checkout API, balances and crypto withdrawals. ' +
        'Every non-2xx answer is the one error shape (`ErrorBody`). Amounts are decimal strings; requests also take numbers.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [
      {
        url: '/',
        description: 'This service, in whichever environment serves the document (local, staging or production: the document is served by the API it describes)',
        'x-internal': false,
      },
    ],
    tags: [
      { name: 'Payment links', description: 'The integrator’s links, behind `X-API-KEY`' },
      {
        name: 'Orders',
        description:
          'Orders a shop’s server creates for its own cart at its own price, behind `X-API-KEY`: only the key sets an order’s amount, currency, `reference` and `metadata`, and its sessions carry them. ' +
          'Its `url` is a hosted checkout page; the keyless `/v1/checkout/orders/{id}` routes show and pay it. Paid once: the first session that settles it marks it `paid` (`order.paid`); a later transfer to another of its sessions is a late payment.',
      },
      { name: 'Checkout', description: 'The keyless public API the checkout element and the hosted page call' },
      { name: 'Withdrawals', description: 'Crypto payouts from the balance, behind `X-API-KEY`' },
      { name: 'Balance', description: 'Available and pending funds per asset, behind `X-API-KEY`' },
      { name: 'Rates', description: 'The exchange rates sessions are quoted with, and what each source says, behind `X-API-KEY`' },
      {
        name: 'Refunds',
        description:
          'Money given back to a customer for a payment (all of it, part of it, or what was paid too much), behind `X-API-KEY`; and accepting an underpaid or late payment as paid (`resolve`). ' +
          'A refund leaves the `available` balance of the session’s asset on the network it was paid on when it is made, and is paid out like a withdrawal (one nonce, one stored signed transaction, never sent twice). ' +
          'Without an `address`, it awaits the customer’s: send them its `claimUrl`, a hosted page where they connect a wallet or paste an address (the keyless `/v1/checkout/refunds/{id}` routes, behind the link’s claim token). ' +
          'A failed or cancelled refund’s amount is back in the balance. Events: `refund.created`, `refund.succeeded`, `refund.failed`, `checkout.session.resolved`.',
      },
      {
        name: 'Payments',
        description:
          'The merchant’s checkout sessions with what the customer entered (delivery address, phone, email), the amounts and every transfer, behind `X-API-KEY`. The keyless checkout API never returns customer details.',
      },
      {
        name: 'Webhooks',
        description:
          'Endpoints the service posts events to, and their delivery logs, behind `X-API-KEY`. A delivery is `POST <url>` with a `WebhookEvent` as JSON and the headers ' +
          '`Paylink-Event-Id` (the event id, the same on every retry) and `Paylink-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` ' +
          '(check it with `verifyWebhook` of `paylink/webhooks`). A 2xx within 10 s is delivered; anything else (redirects are not followed) is retried after ' +
          '`PAYLINK_WEBHOOK_RETRY_BASE_MS` (30 s), then doubling, for 3 days. Events: ' +
          `${WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\` (${WEBHOOK_EVENT_NOTES[type]})`).join(', ')}. ` +
          'Endpoints at loopback, private, link-local, metadata or otherwise non-public addresses are refused (at creation and at every delivery), on every chain, unless the service runs with `PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`.',
      },
    ],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'An integrator API key (`paylink keys create`)' } },
      schemas: responseSchemas(),
      responses: errorResponses(),
    },
    paths: withCommonErrors(pathsOf({
      createPaymentLink: {
        tags: ['Payment links'],
        parameters: [idempotencyKeyParameter],
        responses: responses({ 201: { ...json(ref('PaymentLink'), 'Created'), headers: replayedHeader } }, [400, 401, 409, 413]),
      },
      updatePaymentLink: {
        tags: ['Payment links'],
        parameters: [{ name: 'id', in: 'query', required: false, description: 'The link, when the body does not name it', schema: { type: 'string', format: 'uuid', maxLength: MAX_LENGTH.id } }],
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
          { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string', description: '`event: status` with `data:` a CheckoutSession' } } } } },
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
        responses: responses({ 201: { ...json(ref('Order'), 'Created (or the replay of the request that created it)'), headers: replayedHeader } }, [400, 401, 409, 413]),
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
        responses: responses({ 200: { ...json(ref('WebhookEndpointCreated'), 'The endpoint with its new `secret`'), headers: replayedHeader } }, [400, 401, 404, 409, 413]),
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
        responses: responses({ 201: { ...json(ref('Refund'), 'Created (or the replay of the request that created it)'), headers: replayedHeader } }, [400, 401, 404, 409, 413, 422]),
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
        description: 'Only while `awaiting_address`: anything else is 409 `refund_not_cancellable`. A cancelled refund is answered as it is (200), so a retried cancel is safe.',
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
    })),
  };
  return cached;
}
