/**
 * `GET /v1/openapi.json`, generated from the zod schemas that validate requests and shape responses
 * (`core/schemas.ts`, whose limits come from `core/rules/limits.ts`). Named schemas are reusable
 * `components.schemas`; each operation lists only the error statuses it can answer with, every
 * one of them the one error shape. `npm test` lints the document with Redocly's recommended rules
 * (scripts/lint-openapi.ts).
 */
import { z } from 'zod';
import { MAX_COUNT, MAX_LENGTH, SLUG_PATTERN, UUID_PATTERN } from '../../core/rules/limits.js';
import * as S from '../../core/schemas.js';

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
  VisitResult: S.VisitResult,
  CheckoutSession: S.CheckoutSession,
  WithdrawalCreated: S.WithdrawalCreated,
  Withdrawal: S.Withdrawal,
  WithdrawalList: S.WithdrawalList,
  WithdrawalNetwork: S.WithdrawalNetwork,
  WithdrawalNetworkList: S.WithdrawalNetworkList,
  BalanceItem: S.BalanceItem,
  Balance: S.Balance,
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
  WebhookTestObject: S.WebhookTestObject,
  WebhookEvent: S.WebhookEvent,
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
 * (the nullability moves into each branch).
 */
function typeNullables(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => typeNullables(item, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, typeNullables(value, components)])) as Json;
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
  410: ['Gone', 'The donation is closed'],
  413: ['PayloadTooLarge', 'The request body is larger than 256 KiB'],
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
const body = (id: keyof typeof REQUEST_SCHEMAS) => ({ required: true, content: { 'application/json': { schema: (requests ??= requestSchemas())[id] } } });
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
      { name: 'Payment links', description: 'The integrator’s links (spec §4.1–4.4), behind `X-API-KEY`' },
      { name: 'Checkout', description: 'The keyless public API the checkout element and the hosted page call' },
      { name: 'Withdrawals', description: 'Crypto payouts from the balance (spec §4.5–4.6), behind `X-API-KEY`' },
      { name: 'Balance', description: 'Available and pending funds per asset, behind `X-API-KEY`' },
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
          '`checkout.session.paid` (paid or overpaid), `checkout.session.underpaid`, `checkout.session.expired`, `payment.late`, `withdrawal.succeeded`, `withdrawal.failed`. ' +
          'Endpoints at loopback, private, link-local or metadata addresses are refused (at creation and at every delivery) unless the chain is the sandbox or `PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`.',
      },
    ],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'An integrator API key (`paylink keys create`)' } },
      schemas: responseSchemas(),
      responses: errorResponses(),
    },
    paths: withCommonErrors({
      '/v1/payment-link': {
        post: {
          operationId: 'createPaymentLink',
          summary: 'Create a payment link',
          tags: ['Payment links'],
          security: keyed,
          requestBody: body('CreatePaymentLinkInput'),
          responses: responses({ 201: json(ref('PaymentLink'), 'Created') }, [400, 401, 413]),
        },
        patch: {
          operationId: 'updatePaymentLink',
          summary: 'Update a payment link named by `id` (in the body or `?id=`)',
          tags: ['Payment links'],
          security: keyed,
          parameters: [{ name: 'id', in: 'query', required: false, description: 'The link, when the body does not name it', schema: { type: 'string', format: 'uuid', maxLength: MAX_LENGTH.id } }],
          requestBody: body('UpdatePaymentLinkInput'),
          responses: responses({ 200: json(ref('PaymentLink'), 'The updated link') }, [400, 401, 404, 413]),
        },
        get: {
          operationId: 'listPaymentLinks',
          summary: 'List payment links, newest first',
          tags: ['Payment links'],
          security: keyed,
          parameters: queryParameters(S.ListPaymentLinksQuery),
          responses: responses({ 200: json(ref('PaymentLinkList'), 'One page of links') }, [400, 401]),
        },
      },
      '/v1/payment-link/{id}/single': {
        get: {
          operationId: 'getPaymentLink',
          summary: 'Get one payment link',
          tags: ['Payment links'],
          security: keyed,
          parameters: [uuidParameter('The link’s id')],
          responses: responses({ 200: json(ref('PaymentLink'), 'The link') }, [401, 404]),
        },
      },
      '/v1/checkout/{slug}': {
        get: {
          operationId: 'getPublicLink',
          summary: 'Public view of a link',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [slugParameter],
          responses: responses({ 200: json(ref('PublicLink'), 'The link, without owner ids or counts') }, [404, 429]),
        },
      },
      '/v1/checkout/{slug}/visits': {
        post: {
          operationId: 'recordVisit',
          summary: 'Count a visit (a repeat of the same `visitId` within 30 minutes counts once)',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [slugParameter],
          requestBody: body('RecordVisitInput'),
          responses: responses({ 200: json(ref('VisitResult'), 'Whether the visit counted') }, [400, 404, 413, 429]),
        },
      },
      '/v1/checkout/{slug}/sessions': {
        post: {
          operationId: 'startCheckoutSession',
          summary: 'Start a checkout session: a quote (at the market rate it records: `rate`, `rateSource`, `rateAt`) and an address to pay it at',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [slugParameter],
          requestBody: body('StartSessionInput'),
          responses: responses({ 201: json(ref('CheckoutSession'), 'Created') }, [400, 404, 410, 413, 422, 429, 503]),
        },
      },
      '/v1/checkout/sessions/{id}': {
        get: {
          operationId: 'getCheckoutSession',
          summary: 'Get a checkout session',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [uuidParameter('The session’s id')],
          responses: responses({ 200: json(ref('CheckoutSession'), 'The session') }, [404, 429]),
        },
      },
      '/v1/checkout/sessions/{id}/events': {
        get: {
          operationId: 'streamCheckoutSession',
          summary: 'Server-Sent Events: one `status` event (the session as JSON) per change, until a terminal status',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [uuidParameter('The session’s id')],
          responses: responses(
            { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string', description: '`event: status` with `data:` a CheckoutSession' } } } } },
            [404, 429],
          ),
        },
      },
      '/v1/checkout/sessions/{id}/simulate-payment': {
        post: {
          operationId: 'simulatePayment',
          summary: 'Sandbox chain only: simulate an incoming transfer (404 on a real chain)',
          tags: ['Checkout'],
          security: publicOperation,
          parameters: [uuidParameter('The session’s id')],
          requestBody: body('SimulatePaymentInput'),
          responses: responses({ 200: json(ref('CheckoutSession'), 'The session after the transfer') }, [400, 404, 409, 413, 429]),
        },
      },
      '/v1/withdrawal': {
        post: {
          operationId: 'createWithdrawal',
          summary: 'Create a crypto withdrawal',
          tags: ['Withdrawals'],
          security: keyed,
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description: 'A retry with the same key and body replays the first answer; with another body it is 409',
              schema: { type: 'string', minLength: 1, maxLength: MAX_LENGTH.idempotencyKey, pattern: '^[\\x21-\\x7e]+$' },
            },
          ],
          requestBody: body('CreateWithdrawalInput'),
          responses: responses(
            {
              200: {
                ...json(ref('WithdrawalCreated'), 'Accepted: the payout runs in the background'),
                headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request', schema: { type: 'string', enum: ['true'] } } },
              },
            },
            [400, 401, 409, 413, 422],
          ),
        },
        get: {
          operationId: 'listWithdrawals',
          summary: 'List withdrawals, newest first',
          tags: ['Withdrawals'],
          security: keyed,
          parameters: queryParameters(S.ListWithdrawalsQuery),
          responses: responses({ 200: json(ref('WithdrawalList'), 'One page of withdrawals') }, [400, 401]),
        },
      },
      '/v1/withdrawal/networks': {
        get: {
          operationId: 'listWithdrawalNetworks',
          summary: 'The networks a withdrawal can use, as configured',
          tags: ['Withdrawals'],
          security: keyed,
          responses: responses({ 200: json(ref('WithdrawalNetworkList'), 'The configured networks') }, [401]),
        },
      },
      '/v1/withdrawal/{id}': {
        get: {
          operationId: 'getWithdrawal',
          summary: 'Get one withdrawal',
          tags: ['Withdrawals'],
          security: keyed,
          parameters: [uuidParameter('The withdrawal’s id')],
          responses: responses({ 200: json(ref('Withdrawal'), 'The withdrawal') }, [401, 404]),
        },
      },
      '/v1/checkout-session': {
        get: {
          operationId: 'listCheckoutSessionRecords',
          summary: 'List the merchant’s checkout sessions (its payments), newest first',
          tags: ['Payments'],
          security: keyed,
          parameters: queryParameters(S.ListCheckoutSessionsQuery),
          responses: responses({ 200: json(ref('CheckoutSessionRecordList'), 'One page of sessions') }, [400, 401]),
        },
      },
      '/v1/checkout-session/{id}': {
        get: {
          operationId: 'getCheckoutSessionRecord',
          summary: 'Get one checkout session with its transfers, reference, metadata and customer details',
          tags: ['Payments'],
          security: keyed,
          parameters: [uuidParameter('The session’s id')],
          responses: responses({ 200: json(ref('CheckoutSessionRecord'), 'The session') }, [401, 404]),
        },
      },
      '/v1/webhook-endpoint': {
        post: {
          operationId: 'createWebhookEndpoint',
          summary: 'Add a webhook endpoint; the answer carries its signing secret, shown only here',
          tags: ['Webhooks'],
          security: keyed,
          requestBody: body('CreateWebhookEndpointInput'),
          responses: responses({ 201: json(ref('WebhookEndpointCreated'), 'Created, with `secret`') }, [400, 401, 413]),
          callbacks: { event: { '{$request.body#/url}': { post: webhookDelivery } } },
        },
        get: {
          operationId: 'listWebhookEndpoints',
          summary: 'List webhook endpoints, newest first',
          tags: ['Webhooks'],
          security: keyed,
          parameters: queryParameters(S.ListWebhookEndpointsQuery),
          responses: responses({ 200: json(ref('WebhookEndpointList'), 'One page of endpoints') }, [400, 401]),
        },
        patch: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Change the endpoint named by `id`: its url, events, description or isActive',
          tags: ['Webhooks'],
          security: keyed,
          requestBody: body('UpdateWebhookEndpointInput'),
          responses: responses({ 200: json(ref('WebhookEndpoint'), 'The updated endpoint') }, [400, 401, 404, 413]),
        },
      },
      '/v1/webhook-endpoint/{id}': {
        get: {
          operationId: 'getWebhookEndpoint',
          summary: 'Get one webhook endpoint (never its secret)',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The endpoint’s id')],
          responses: responses({ 200: json(ref('WebhookEndpoint'), 'The endpoint') }, [401, 404]),
        },
        delete: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Delete a webhook endpoint, its pending deliveries and its log',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The endpoint’s id')],
          responses: responses({ 200: json(ref('WebhookEndpointDeleted'), 'Deleted') }, [401, 404]),
        },
      },
      '/v1/webhook-endpoint/{id}/deliveries': {
        get: {
          operationId: 'listWebhookDeliveries',
          summary: 'The endpoint’s delivery log, newest first: attempts, status codes, errors, next retry',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The endpoint’s id'), ...queryParameters(S.ListWebhookDeliveriesQuery)],
          responses: responses({ 200: json(ref('WebhookDeliveryList'), 'One page of deliveries') }, [400, 401, 404]),
        },
      },
      '/v1/webhook-endpoint/{id}/test': {
        post: {
          operationId: 'sendWebhookTestEvent',
          summary: 'Send a `webhook.test` event to the endpoint now (even an inactive one); answers with its delivery after that attempt (not retried on its own)',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The endpoint’s id')],
          responses: responses({ 200: json(ref('WebhookDelivery'), 'The test delivery after its attempt') }, [401, 404]),
        },
      },
      '/v1/webhook-delivery/{id}': {
        get: {
          operationId: 'getWebhookDelivery',
          summary: 'Get one delivery and its attempts',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The delivery’s id')],
          responses: responses({ 200: json(ref('WebhookDelivery'), 'The delivery') }, [401, 404]),
        },
      },
      '/v1/webhook-delivery/{id}/retry': {
        post: {
          operationId: 'retryWebhookDelivery',
          summary: 'Send the delivery’s event again now (same event id, new signature), whatever its status; answers with the delivery after that attempt',
          tags: ['Webhooks'],
          security: keyed,
          parameters: [uuidParameter('The delivery’s id')],
          responses: responses({ 200: json(ref('WebhookDelivery'), 'The delivery after the attempt') }, [401, 404]),
        },
      },
      '/v1/balance': {
        get: {
          operationId: 'getBalance',
          summary: 'Balances per asset',
          tags: ['Balance'],
          security: keyed,
          responses: responses({ 200: json(ref('Balance'), 'Available and pending per asset') }, [401]),
        },
      },
    }),
  };
  return cached;
}
