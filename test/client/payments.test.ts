/**
 * The client's payments and webhooks resources against a fake fetch: each call's method,
 * path, query and body, and each answer parsed with the schema the service answers with, so a page of
 * the admin built on them fails here first if the contract moves.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PaylinkNotFoundError, PaylinkServerError, createPaylinkClient, type CheckoutSessionRecord, type WebhookDelivery } from '../../src/client/index.js';
import { checkSessionTags, checkWebhookEndpoint, WEBHOOK_EVENT_TYPES } from '../../src/core/rules/index.js';
import { CreateWebhookEndpointInput, StartSessionInput } from '../../src/core/schemas.js';

const SESSION_ID = '6f1d2c3b-4a5e-4f70-8a9b-0c1d2e3f4a5b';
const LINK_ID = '0b3c3a57-3d0f-4b4e-9a53-3b1c1c2f7e11';
const ENDPOINT_ID = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const DELIVERY_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const AT = '2025-03-01T10:00:00.000Z';

const record: CheckoutSessionRecord = {
  id: SESSION_ID,
  linkId: LINK_ID,
  slug: 'AbCdE12345',
  linkTitle: 'Order 1042',
  orderId: null,
  status: 'paid',
  fiatAmount: '2000.00',
  fiatCurrency: 'NGN',
  assetId: 'USDT',
  blockchainId: 'bsc',
  networkName: 'BNB Smart Chain',
  cryptoAmount: '1.250000',
  rate: '0.000625',
  rateSource: 'coinbase',
  rateAt: AT,
  rateBasis: [{ pair: 'USD/NGN', perUsd: '1600', quorum: 1, sources: [{ source: 'coinbase', perUsd: '1600', at: AT, used: true }] }],
  paidAmount: '1.250000',
  lateAmount: '0.000000',
  reversedAmount: '0.000000',
  payAddress: '0x000000000000000000000000000000000000dEaD',
  paidBlockchainId: 'bsc',
  transfers: [{ txHash: `0x${'ab'.repeat(32)}`, blockchainId: 'bsc', amount: '1.250000', confirmedAt: AT, late: false }],
  reference: 'order-1042',
  metadata: { cart: '42' },
  clientReference: null,
  customer: { address: '1 Marina, Lagos', phone: '+2348012345678', email: null },
  donorName: null,
  message: null,
  showPublicly: false,
  donorHiddenAt: null,
  createdAt: AT,
  paidAt: AT,
  finalizedAt: null,
  expiresAt: AT,
  refundedAmount: '0.000000',
  resolution: null,
  resolvedAt: null,
  resolutionReason: null,
};
const endpoint = {
  id: ENDPOINT_ID,
  url: 'https://shop.example/paylink/webhooks',
  description: 'Orders',
  events: ['checkout.session.paid', 'withdrawal.failed'],
  isActive: true,
  previousSecretExpiresAt: null,
  createdAt: AT,
  updatedAt: AT,
};
const delivery: WebhookDelivery = {
  id: DELIVERY_ID,
  endpointId: ENDPOINT_ID,
  eventId: 'evt_0123456789abcdef',
  eventType: 'webhook.test',
  status: 'delivered',
  attemptCount: 1,
  attempts: [{ at: AT, statusCode: 200, error: null, durationMs: 42 }],
  nextAttemptAt: null,
  deliveredAt: AT,
  createdAt: AT,
};
const meta = { totalItems: 1, itemCount: 1, itemsPerPage: 20, totalPages: 1, currentPage: 1 };

/** A fake fetch answering `body` with `status`, recording each request (and its body text). */
function fakeFetch(body: unknown, status = 200) {
  const calls: { method: string; url: URL; headers: Headers; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = await request.text();
    calls.push({ method: request.method, url: new URL(request.url), headers: request.headers, body: text ? JSON.parse(text) : undefined });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, calls };
}

function clientWith(body: unknown, status = 200) {
  const fake = fakeFetch(body, status);
  return { client: createPaylinkClient({ baseUrl: 'https://shop.example/paylink/admin', token: 'admin-token', fetch: fake.fetch }), calls: fake.calls };
}

describe('client.sessions', () => {
  test('list sends the filters as the query (dates as ISO) and parses the page', async () => {
    const { client, calls } = clientWith({ items: [record], meta });
    const page = await client.sessions.list({
      linkId: LINK_ID,
      status: 'paid',
      reference: 'order-1042',
      startDate: new Date('2025-03-01T00:00:00.000Z'),
      endDate: '2025-03-31',
      page: 2,
      limit: 10,
    });
    assert.equal(calls[0]!.method, 'GET');
    assert.equal(calls[0]!.url.pathname, '/paylink/admin/checkout-session');
    assert.deepEqual(Object.fromEntries(calls[0]!.url.searchParams), {
      linkId: LINK_ID,
      status: 'paid',
      reference: 'order-1042',
      startDate: '2025-03-01T00:00:00.000Z',
      endDate: '2025-03-31',
      page: '2',
      limit: '10',
    });
    assert.equal(calls[0]!.headers.get('authorization'), 'Bearer admin-token');
    assert.deepEqual(page.items[0], record);
    assert.equal(page.meta.totalItems, 1);
  });

  test('get names the session in the path and returns the customer details and transfers', async () => {
    const { client, calls } = clientWith(record);
    const session = await client.sessions.get({ id: SESSION_ID });
    assert.equal(calls[0]!.url.pathname, `/paylink/admin/checkout-session/${SESSION_ID}`);
    assert.equal(session.customer.phone, '+2348012345678');
    assert.equal(session.transfers[0]!.amount, '1.250000');
    assert.throws(() => client.sessions.get(''), TypeError, 'an empty id is refused before any request');
  });

  test('a 404 is a PaylinkNotFoundError; an answer of another shape a PaylinkServerError', async () => {
    await assert.rejects(
      clientWith({ status: 'error', statusCode: 404, code: 'not_found', message: 'Checkout session not found' }, 404).client.sessions.get(SESSION_ID),
      PaylinkNotFoundError,
    );
    const { customer: _, ...withoutCustomer } = record;
    await assert.rejects(clientWith(withoutCustomer).client.sessions.get(SESSION_ID), PaylinkServerError);
  });
});

describe('client.webhookEndpoints and client.webhookDeliveries', () => {
  test('create posts the body and returns the secret', async () => {
    const { client, calls } = clientWith({ ...endpoint, secret: 'whsec_abc' }, 201);
    const created = await client.webhookEndpoints.create({ url: endpoint.url, events: ['checkout.session.paid', 'withdrawal.failed'], description: 'Orders' });
    assert.equal(calls[0]!.method, 'POST');
    assert.equal(calls[0]!.url.pathname, '/paylink/admin/webhook-endpoint');
    assert.deepEqual(calls[0]!.body, { url: endpoint.url, events: ['checkout.session.paid', 'withdrawal.failed'], description: 'Orders' });
    assert.equal(created.secret, 'whsec_abc');
    assert.deepEqual(created.events, ['checkout.session.paid', 'withdrawal.failed']);
  });

  test('list, get, update and delete go to their paths with their methods', async () => {
    let fake = clientWith({ items: [endpoint], meta });
    const page = await fake.client.webhookEndpoints.list({ page: 1, limit: 5 });
    assert.equal(fake.calls[0]!.url.pathname + fake.calls[0]!.url.search, '/paylink/admin/webhook-endpoint?page=1&limit=5');
    assert.equal(page.items[0]!.url, endpoint.url);
    assert.equal('secret' in page.items[0]!, false);

    fake = clientWith(endpoint);
    await fake.client.webhookEndpoints.get(ENDPOINT_ID);
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-endpoint/${ENDPOINT_ID}`);

    fake = clientWith({ ...endpoint, isActive: false });
    const updated = await fake.client.webhookEndpoints.update({ id: ENDPOINT_ID, isActive: false });
    assert.equal(fake.calls[0]!.method, 'PATCH');
    assert.equal(fake.calls[0]!.url.pathname, '/paylink/admin/webhook-endpoint');
    assert.deepEqual(fake.calls[0]!.body, { id: ENDPOINT_ID, isActive: false });
    assert.equal(updated.isActive, false);

    fake = clientWith({ id: ENDPOINT_ID, deleted: true });
    const deleted = await fake.client.webhookEndpoints.delete({ id: ENDPOINT_ID });
    assert.equal(fake.calls[0]!.method, 'DELETE');
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-endpoint/${ENDPOINT_ID}`);
    assert.equal(deleted.deleted, true);
  });

  test('deliveries, send test event, get and retry', async () => {
    let fake = clientWith({ items: [delivery], meta });
    const log = await fake.client.webhookEndpoints.deliveries(ENDPOINT_ID, { status: 'failed', limit: 50 });
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-endpoint/${ENDPOINT_ID}/deliveries`);
    assert.deepEqual(Object.fromEntries(fake.calls[0]!.url.searchParams), { status: 'failed', limit: '50' });
    assert.equal(log.items[0]!.attempts[0]!.statusCode, 200);

    fake = clientWith(delivery);
    const sent = await fake.client.webhookEndpoints.sendTestEvent(ENDPOINT_ID);
    assert.equal(fake.calls[0]!.method, 'POST');
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-endpoint/${ENDPOINT_ID}/test`);
    assert.equal(sent.status, 'delivered');

    fake = clientWith(delivery);
    const one = await fake.client.webhookDeliveries.get(DELIVERY_ID);
    assert.equal(fake.calls[0]!.method, 'GET');
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-delivery/${DELIVERY_ID}`);
    assert.equal(one.attempts[0]!.statusCode, 200);

    fake = clientWith({ ...delivery, status: 'pending', nextAttemptAt: AT });
    const retried = await fake.client.webhookDeliveries.retry({ id: DELIVERY_ID });
    assert.equal(fake.calls[0]!.method, 'POST');
    assert.equal(fake.calls[0]!.url.pathname, `/paylink/admin/webhook-delivery/${DELIVERY_ID}/retry`);
    assert.equal(retried.nextAttemptAt, AT);
  });

  test('an endpoint with an unknown event type in its answer is refused as an unexpected shape', async () => {
    await assert.rejects(clientWith({ ...endpoint, events: ['order.shipped'] }).client.webhookEndpoints.get(ENDPOINT_ID), PaylinkServerError);
  });
});

describe('the rules behind the contract', () => {
  test('reference and metadata: trimmed, bounded, counted', () => {
    assert.deepEqual(checkSessionTags('  order-7 ', { a: '1' }), { tags: { reference: 'order-7', metadata: { a: '1' } }, errors: [] });
    assert.deepEqual(checkSessionTags('   ', undefined).tags, { reference: null, metadata: {} });
    assert.deepEqual(
      checkSessionTags('x'.repeat(201), undefined).errors.map((e) => e.key),
      ['text.tooLong'],
    );
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    assert.deepEqual(
      checkSessionTags(undefined, many).errors.map((e) => e.key),
      ['metadata.tooMany'],
    );
    assert.deepEqual(
      checkSessionTags(undefined, { ['k'.repeat(41)]: 'v', n: 5 }).errors.map((e) => e.key),
      ['metadata.keyInvalid', 'metadata.valueInvalid'],
    );
    assert.equal(StartSessionInput.safeParse({ assetId: 'USDT', metadata: many }).success, false, 'the schema caps metadata too');
  });

  test('endpoints: https (http only when allowed), no credentials, known events stored in one order', () => {
    const https = checkWebhookEndpoint(
      { url: ' https://shop.example/hook ', events: ['withdrawal.failed', 'checkout.session.paid', 'withdrawal.failed'] },
      { allowHttp: false, requireUrl: true },
    );
    assert.deepEqual(https, { fields: { url: 'https://shop.example/hook', events: ['checkout.session.paid', 'withdrawal.failed'] }, errors: [] });
    assert.deepEqual(
      checkWebhookEndpoint({ url: 'http://shop.example/hook' }, { allowHttp: false, requireUrl: true }).errors.map((e) => e.key),
      ['webhook.urlHttps'],
    );
    assert.deepEqual(checkWebhookEndpoint({ url: 'http://localhost:3000/hook' }, { allowHttp: true, requireUrl: true }).errors, []);
    for (const url of ['ftp://shop.example/x', 'https://user:pw@shop.example/x', 'https://shop.example/x#frag', 'not a url'])
      assert.deepEqual(
        checkWebhookEndpoint({ url }, { allowHttp: true, requireUrl: true }).errors.map((e) => e.key),
        ['webhook.urlInvalid'],
        url,
      );
    assert.deepEqual(
      checkWebhookEndpoint({}, { allowHttp: true, requireUrl: true }).errors.map((e) => e.key),
      ['webhook.urlRequired'],
    );
    assert.deepEqual(
      checkWebhookEndpoint({ events: [] }, { allowHttp: true, requireUrl: false }).errors.map((e) => e.key),
      ['webhook.eventsRequired'],
    );
    assert.deepEqual(
      checkWebhookEndpoint({ events: ['order.shipped'] }, { allowHttp: true, requireUrl: false }).errors.map((e) => e.path),
      ['events.0'],
    );
    assert.equal(WEBHOOK_EVENT_TYPES.length, 14);
    assert.ok(WEBHOOK_EVENT_TYPES.includes('checkout.session.finalized'), 'checkout.session.finalized, when a paid session’s money is final');
    assert.ok(WEBHOOK_EVENT_TYPES.includes('order.paid'), 'order.paid, once per order');
    assert.ok(WEBHOOK_EVENT_TYPES.includes('payment.reversed'), 'payment.reversed, when a reorg takes back a payment before it is final');
    assert.equal(CreateWebhookEndpointInput.safeParse({ url: 'https://x.example', events: Array(21).fill('payment.late') }).success, false);
  });
});
