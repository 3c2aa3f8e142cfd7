/**
 * The OpenAPI document (`GET /v1/openapi.json`): generated from the zod schemas, with reusable
 * schemas, the limits of `core/rules/limits.ts` on every request string, and per-operation errors.
 * (Its lint with Redocly's recommended rules runs in `npm test` as `npm run lint:openapi`.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_LENGTH } from '../../../src/core/rules/limits.js';
import { openApiDocument } from '../../../src/server/service/openapi.js';

type Json = Record<string, any>;
const doc = openApiDocument() as Json;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Json })),
);

/** Every schema node below `node`, with where it is. */
function* walk(node: unknown, at: string): Generator<[Json, string]> {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* walk(item, `${at}/${index}`);
  } else if (typeof node === 'object' && node !== null) {
    yield [node as Json, at];
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${at}/${key}`);
  }
}

const resolve = (ref: string) =>
  ref
    .split('/')
    .slice(1)
    .reduce((node: Json, key) => node[key], doc);

describe('the OpenAPI document', () => {
  it('declares reusable schemas, servers and the API-key scheme', () => {
    for (const name of ['PaymentLink', 'CheckoutSession', 'Withdrawal', 'ErrorBody', 'PageMeta', 'AssetId']) assert.ok(doc.components.schemas[name], name);
    assert.equal(doc.paths['/v1/payment-link/{id}/single'].get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/PaymentLink');
    assert.ok(doc.servers.length > 0);
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-KEY',
      description: doc.components.securitySchemes.apiKey.description,
    });
  });

  it('has no empty schema anywhere (fiatAmount is a decimal string)', () => {
    for (const [node, at] of walk(doc.components.schemas, '#/components/schemas')) assert.notDeepEqual(node, {}, `an empty schema at ${at}`);
    const fiatAmount = doc.components.schemas.PaymentLink.properties.fiatAmount;
    assert.equal(fiatAmount.type, 'string');
    assert.ok(fiatAmount.pattern);
  });

  it('gives every request string a maxLength (or an enum), in bodies and parameters', () => {
    const requestRoots: Array<[unknown, string]> = [
      ...operations
        .filter(({ operation }) => operation.requestBody)
        .map(({ path, method, operation }): [unknown, string] => [operation.requestBody.content['application/json'].schema, `${method} ${path} body`]),
      ...operations.flatMap(({ path, method, operation }) =>
        (operation.parameters ?? []).map((parameter: Json): [unknown, string] => [parameter.schema, `${method} ${path} ${parameter.name}`]),
      ),
    ];
    let strings = 0;
    for (const [root, name] of requestRoots)
      for (const [node, at] of walk(root, name))
        if (node.type === 'string') {
          strings++;
          assert.ok(node.maxLength !== undefined || node.enum !== undefined, `no maxLength at ${at}`);
        }
    assert.ok(strings > 30, `only ${strings} request strings found`);
    assert.equal(doc.paths['/v1/payment-link'].post.requestBody.content['application/json'].schema.properties.title.maxLength, MAX_LENGTH.title);
  });

  it('names the formats and patterns the rules enforce', () => {
    const bodyOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties;
    assert.match('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', new RegExp(bodyOf('/v1/withdrawal').address.pattern));
    assert.equal(bodyOf('/v1/checkout/{slug}/sessions').customer.properties.email.format, 'email');
    assert.equal(doc.components.schemas.PaymentLink.properties.createdAt.format, 'date-time');
    assert.equal(doc.components.schemas.Withdrawal.properties.id.format, 'uuid');
  });

  it('gives every operation a unique operationId, a summary and a tag', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0));
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(operations.every(({ operation }) => operation.summary && operation.tags?.length));
  });

  it('marks public operations security: [] and keyed ones with the API key', () => {
    for (const { path, method, operation } of operations) {
      const isPublic = path.startsWith('/v1/checkout/');
      assert.deepEqual(operation.security, isPublic ? [] : [{ apiKey: [] }], `${method} ${path}`);
    }
  });

  it('lists only the errors each operation can return: 401 on keyed ones, 413 and 415 where a body is read, 500 and 503 everywhere, 429 with Retry-After', () => {
    for (const { path, method, operation } of operations) {
      const codes = Object.keys(operation.responses);
      const keyedOperation = operation.security.length > 0;
      assert.equal(codes.includes('401'), keyedOperation, `401 on ${method} ${path}`);
      assert.equal(codes.includes('413'), Boolean(operation.requestBody), `413 on ${method} ${path}`);
      assert.equal(codes.includes('415'), Boolean(operation.requestBody), `415 on ${method} ${path}`);
      assert.ok(codes.includes('500') && codes.includes('503'), `500 and 503 on ${method} ${path}`);
      for (const code of codes.filter((c) => c >= '400')) {
        const response = resolve(operation.responses[code].$ref);
        assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/ErrorBody');
      }
    }
    assert.deepEqual(Object.keys(doc.paths['/v1/payment-link/{id}/single'].get.responses).sort(), ['200', '401', '404', '500', '503']);
    assert.ok(!('410' in doc.paths['/v1/withdrawal'].post.responses), 'a withdrawal is never 410');
    assert.ok(doc.components.responses.TooManyRequests.headers['Retry-After']);
    assert.ok(doc.paths['/v1/checkout/{slug}/sessions'].post.responses['429']);
  });

  it('documents the payments and webhooks, and what a delivery carries', () => {
    const expected: Array<[string, string, string]> = [
      ['/v1/checkout-session', 'get', 'CheckoutSessionRecordList'],
      ['/v1/checkout-session/{id}', 'get', 'CheckoutSessionRecord'],
      ['/v1/webhook-endpoint', 'post', 'WebhookEndpointCreated'],
      ['/v1/webhook-endpoint', 'get', 'WebhookEndpointList'],
      ['/v1/webhook-endpoint', 'patch', 'WebhookEndpoint'],
      ['/v1/webhook-endpoint/{id}', 'get', 'WebhookEndpoint'],
      ['/v1/webhook-endpoint/{id}', 'delete', 'WebhookEndpointDeleted'],
      ['/v1/webhook-endpoint/{id}/deliveries', 'get', 'WebhookDeliveryList'],
      ['/v1/webhook-endpoint/{id}/test', 'post', 'WebhookDelivery'],
      ['/v1/webhook-delivery/{id}', 'get', 'WebhookDelivery'],
      ['/v1/webhook-delivery/{id}/retry', 'post', 'WebhookDelivery'],
    ];
    for (const [path, method, schema] of expected) {
      const operation = doc.paths[path]?.[method];
      assert.ok(operation, `${method} ${path}`);
      const success = Object.entries(operation.responses as Json).find(([code]) => code.startsWith('2'))![1] as Json;
      assert.equal(success.content['application/json'].schema.$ref, `#/components/schemas/${schema}`, `${method} ${path}`);
    }
    const query = doc.paths['/v1/checkout-session'].get.parameters.map((p: Json) => p.name);
    assert.deepEqual(query.sort(), ['endDate', 'limit', 'linkId', 'page', 'reference', 'startDate', 'status']);
    assert.deepEqual(doc.components.schemas.WebhookEventType.enum, [
      'checkout.session.paid',
      'checkout.session.underpaid',
      'checkout.session.expired',
      'checkout.session.finalized',
      'checkout.session.resolved',
      'payment.late',
      'order.paid',
      'payment.reversed',
      'refund.created',
      'refund.succeeded',
      'refund.failed',
      'withdrawal.succeeded',
      'withdrawal.failed',
      'reconciliation.mismatch',
    ]);
    assert.ok(
      doc.components.schemas.ReconciliationMismatch.properties.expected,
      'a reconciliation.mismatch delivery carries what the books say and what the chain holds',
    );
    for (const field of ['customer', 'transfers', 'reference', 'metadata', 'paidAt', 'orderId', 'clientReference'])
      assert.ok(doc.components.schemas.CheckoutSessionRecord.properties[field], field);
    assert.equal(doc.components.schemas.CheckoutSession.properties.customer, undefined, 'the keyless session has no customer');
    const delivery = doc.paths['/v1/webhook-endpoint'].post.callbacks.event['{$request.body#/url}'].post;
    assert.deepEqual(
      delivery.parameters.map((p: Json) => p.name),
      ['Paylink-Event-Id', 'Paylink-Signature'],
    );
    assert.equal(delivery.requestBody.content['application/json'].schema.$ref, '#/components/schemas/WebhookEvent');
  });
});
