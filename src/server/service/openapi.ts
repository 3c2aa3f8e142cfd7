/**
 * `GET /v1/openapi.json`, generated from the zod schemas that validate requests and shape responses
 * (`core/schemas.ts`, whose limits come from `core/rules/limits.ts`). Named schemas are reusable
 * `components.schemas`; each operation lists only the error statuses it can answer with, every
 * one of them the one error shape. `npm test` lints the document with Redocly's recommended rules
 * (scripts/lint-openapi.ts).
 */
import { z } from 'zod';
import { MAX_COUNT } from '../../core/rules/limits.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventTypeName } from '../../core/rules/webhooks.js';
import { API_ROUTES, type ApiRoute, type OperationId } from '../../core/routes.js';
import * as S from '../../core/schemas.js';
import { ERROR_RESPONSES, type ErrorStatus, type Json, OPERATION_DETAILS, publicOperation, ref, responses } from '../../core/route-docs.js';
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
// Responses, request bodies and query parameters (each operation's own details: core/route-docs.ts)

/** What each error response means. */
const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'The request is not valid: `errors` names each offending field',
  401: 'No `X-API-KEY`, or one that is unknown or revoked',
  404: 'No such resource (or not the caller’s)',
  409: 'The request conflicts with an earlier one (a reused Idempotency-Key, a payment already made)',
  410: 'The donation is closed, or the order expired or was cancelled',
  413: `The request body is larger than ${LIMIT_DEFAULTS.maxBodyBytes / 1024} KiB`,
  422: 'A business rule refused the request (e.g. insufficient balance, an inactive link)',
  429: 'Too many requests from this client: retry after `Retry-After` seconds',
  415: 'The request body is not JSON (`Content-Type: application/json`)',
  500: 'The service failed unexpectedly (never for bad input); nothing was half done',
  503: 'Too many connections or requests in progress (from this client, or in all), or `rate_unavailable`: no exchange rate fresher than `PAYLINK_RATES_MAX_AGE_S` for the pair (sessions already quoted keep their quote); retry after `Retry-After` seconds',
};

function errorResponses(): Record<string, unknown> {
  const content = { 'application/json': { schema: ref('ErrorBody') } };
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, name]) => [
      name,
      {
        description: ERROR_DESCRIPTIONS[Number(status) as ErrorStatus],
        content,
        ...(name === 'TooManyRequests' || name === 'ServiceUnavailable'
          ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', format: 'int32', minimum: 0 } } } }
          : {}),
      },
    ]),
  );
}

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
        description:
          'This service, in whichever environment serves the document (local, staging or production: the document is served by the API it describes)',
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
    paths: withCommonErrors(pathsOf(OPERATION_DETAILS)),
  };
  return cached;
}
