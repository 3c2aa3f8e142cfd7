/** `GET /v1/openapi.json`, generated from the zod schemas that validate requests and shape responses. */
import { z } from 'zod';
import * as S from '../../core/schemas.js';

const json = (schema: z.ZodType, io: 'input' | 'output' = 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' });

const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema: json(schema, 'input') } } });
const ok = (schema: z.ZodType, description = 'OK') => ({ description, content: { 'application/json': { schema: json(schema) } } });
const error = { description: 'Error', content: { 'application/json': { schema: json(S.ErrorBody) } } };
const errors = { 400: error, 401: error, 404: error, 409: error, 410: error, 422: error, 429: error };
const apiKey = [{ apiKey: [] }];

function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: 'query',
    required: false,
    schema: json(field as z.ZodType, 'input'),
  }));
}

let cached: object | undefined;

export function openApiDocument(): object {
  cached ??= {
    openapi: '3.0.3',
    info: { title: 'Paylink: Payment Link and Crypto Withdrawal Service', version: '1.0.0' },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } } },
    paths: {
      '/v1/payment-link': {
        post: { summary: 'Create a payment link', security: apiKey, requestBody: body(S.CreatePaymentLinkInput), responses: { 201: ok(S.PaymentLink, 'Created'), ...errors } },
        patch: { summary: 'Update a payment link named by id', security: apiKey, requestBody: body(S.UpdatePaymentLinkInput), responses: { 200: ok(S.PaymentLink), ...errors } },
        get: { summary: 'List payment links, newest first', security: apiKey, parameters: queryParameters(S.ListPaymentLinksQuery), responses: { 200: ok(S.PaymentLinkList), ...errors } },
      },
      '/v1/payment-link/{id}/single': {
        get: { summary: 'Get one payment link', security: apiKey, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: ok(S.PaymentLink), ...errors } },
      },
      '/v1/checkout/{slug}': {
        get: { summary: 'Public view of a link', parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: ok(S.PublicLink), ...errors } },
      },
      '/v1/checkout/{slug}/visits': {
        post: { summary: 'Count a visit', parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }], requestBody: body(S.RecordVisitInput), responses: { 200: ok(S.VisitResult), ...errors } },
      },
      '/v1/checkout/{slug}/sessions': {
        post: { summary: 'Start a checkout session', parameters: [{ name: 'slug', in: 'path', required: true, schema: { type: 'string' } }], requestBody: body(S.StartSessionInput), responses: { 201: ok(S.CheckoutSession, 'Created'), ...errors } },
      },
      '/v1/checkout/sessions/{id}': {
        get: { summary: 'Get a checkout session', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: ok(S.CheckoutSession), ...errors } },
      },
      '/v1/checkout/sessions/{id}/events': {
        get: { summary: 'Server-Sent Events: one `status` event per change', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'text/event-stream' }, ...errors } },
      },
      '/v1/checkout/sessions/{id}/simulate-payment': {
        post: { summary: 'Sandbox chain only: simulate an incoming transfer', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], requestBody: body(S.SimulatePaymentInput), responses: { 200: ok(S.CheckoutSession), ...errors } },
      },
      '/v1/withdrawal': {
        post: { summary: 'Create a crypto withdrawal', security: apiKey, parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } }], requestBody: body(S.CreateWithdrawalInput), responses: { 200: ok(S.WithdrawalCreated), ...errors } },
        get: { summary: 'List withdrawals', security: apiKey, parameters: queryParameters(S.ListWithdrawalsQuery), responses: { 200: ok(S.WithdrawalList), ...errors } },
      },
      '/v1/withdrawal/{id}': {
        get: { summary: 'Get one withdrawal', security: apiKey, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: ok(S.Withdrawal), ...errors } },
      },
      '/v1/balance': {
        get: { summary: 'Balances per asset', security: apiKey, responses: { 200: ok(S.Balance), ...errors } },
      },
    },
  };
  return cached;
}
