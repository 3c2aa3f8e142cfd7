/**
 * The edges an outside attack found in the API: `Idempotency-Key` honoured on every keyed POST (a
 * replay answers the first answer and does nothing again; the key with another body is a 409), a JSON
 * number with more digits than a double holds refused as its string is (not silently rounded), and
 * bidirectional overrides refused in one-line texts (a title that reads backwards).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows } from '../../support/money.js';
import { backends, call, standardLinkBody, startTestService, type TestService } from '../../support/service.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

for (const backend of backends()) {
  describe(`Idempotency-Key on every keyed POST (${backend})`, () => {
    let t: TestService;
    let key: string;
    let receiver: Receiver;

    before(async () => {
      // The retry below posts to a receiver on 127.0.0.1.
      t = await startTestService(backend, { payoutWorker: false, webhooks: { allowPrivate: true } });
      ({ key } = await t.newKey());
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    const post = (path: string, body: unknown, idempotencyKey?: string) =>
      call(t.url, 'POST', path, { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

    it('POST /v1/payment-link: a replay answers the first link, creates nothing; another body with the key is 409', async () => {
      const before = await countRows(t.db, 'payment_links');
      const first = await post('/v1/payment-link', standardLinkBody({ title: 'Once only' }), 'link-create-1');
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await post('/v1/payment-link', standardLinkBody({ title: 'Once only' }), 'link-create-1');
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body, 'the first answer, the same link');
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      // The same link spelt differently (an amount as a string) is the same request.
      const spelt = await post('/v1/payment-link', standardLinkBody({ title: 'Once only', fiatAmount: '2000.00' }), 'link-create-1');
      assert.equal(spelt.body.id, first.body.id);
      assert.equal(await countRows(t.db, 'payment_links'), before + 1, 'one link for three requests');

      const other = await post('/v1/payment-link', standardLinkBody({ title: 'Another link' }), 'link-create-1');
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'idempotency_conflict');
      assert.equal(await countRows(t.db, 'payment_links'), before + 1);
      const without = [await post('/v1/payment-link', standardLinkBody()), await post('/v1/payment-link', standardLinkBody())];
      assert.notEqual(without[0].body.id, without[1].body.id, 'without a key, each request creates');
      assert.equal((await post('/v1/payment-link', standardLinkBody(), 'bad key with spaces')).status, 400);
    });

    it('POST /v1/webhook-endpoint: a replay answers the first endpoint and its secret, creates nothing; another body is 409', async () => {
      const before = await countRows(t.db, 'webhook_endpoints');
      const body = { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] };
      const first = await post('/v1/webhook-endpoint', body, 'endpoint-create-1');
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const again = await post('/v1/webhook-endpoint', body, 'endpoint-create-1');
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body, 'the same endpoint, with the secret it was created with');
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(await countRows(t.db, 'webhook_endpoints'), before + 1);
      const other = await post('/v1/webhook-endpoint', { ...body, events: ['payment.late'] }, 'endpoint-create-1');
      assert.equal(other.status, 409);
      assert.equal(await countRows(t.db, 'webhook_endpoints'), before + 1);
      const sameKeyOtherRoute = await post('/v1/payment-link', standardLinkBody(), 'endpoint-create-1');
      assert.equal(sameKeyOtherRoute.status, 409, 'a key names one request, whatever its route');
    });

    it('POST /v1/webhook-endpoint/{id}/test: a replay answers the first test delivery and sends nothing again', async () => {
      const endpoint = (await post('/v1/webhook-endpoint', { url: `${receiver.url}/test-once` })).body;
      const received = receiver.received.length;
      const first = await post(`/v1/webhook-endpoint/${endpoint.id}/test`, undefined, 'test-1');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, 'delivered');
      assert.equal(receiver.received.length, received + 1);
      const again = await post(`/v1/webhook-endpoint/${endpoint.id}/test`, undefined, 'test-1');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body, 'the same delivery');
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(receiver.received.length, received + 1, 'the replay sent nothing');
      const other = (await post('/v1/webhook-endpoint', { url: `${receiver.url}/test-other` })).body;
      assert.equal((await post(`/v1/webhook-endpoint/${other.id}/test`, undefined, 'test-1')).status, 409, 'the key with another endpoint');
      assert.equal(receiver.received.length, received + 1);
      const without = [await post(`/v1/webhook-endpoint/${endpoint.id}/test`, undefined), await post(`/v1/webhook-endpoint/${endpoint.id}/test`, undefined)];
      assert.notEqual(without[0].body.id, without[1].body.id, 'without a key, each request sends a test');
      assert.equal(receiver.received.length, received + 3);
    });

    it('POST /v1/webhook-delivery/{id}/retry: a replay answers the first attempt and sends nothing again', async () => {
      const endpoint = (await post('/v1/webhook-endpoint', { url: `${receiver.url}/retry` })).body;
      const test = await post(`/v1/webhook-endpoint/${endpoint.id}/test`, undefined);
      assert.equal(test.body.status, 'delivered');
      const received = receiver.received.length;
      const first = await post(`/v1/webhook-delivery/${test.body.id}/retry`, undefined, 'retry-1');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.attemptCount, 2);
      assert.equal(receiver.received.length, received + 1);
      const again = await post(`/v1/webhook-delivery/${test.body.id}/retry`, undefined, 'retry-1');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(receiver.received.length, received + 1, 'the replay sent nothing');
      const otherDelivery = await post(`/v1/webhook-delivery/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/retry`, undefined, 'retry-1');
      assert.equal(otherDelivery.status, 409, 'the key with another delivery');
      const unknown = await post(`/v1/webhook-delivery/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/retry`, undefined, 'retry-2');
      assert.equal(unknown.status, 404);
      const later = await post(`/v1/webhook-delivery/${test.body.id}/retry`, undefined, 'retry-2');
      assert.equal(later.status, 200, 'a 404 stored nothing: the key is free for the next request');
      assert.equal(later.body.attemptCount, 3);
    });
  });
}

describe('numbers and texts (pglite)', () => {
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false });
    ({ key } = await t.newKey());
  });
  after(() => t.close());

  const raw = (path: string, rawBody: string) => call(t.url, 'POST', path, { key, rawBody });
  const link = (fiatAmount: string) =>
    `{"title":"Digits","description":"","fiatAmount":${fiatAmount},"fiatCurrency":"USD","action":{},"options":{},"cart":{"items":[]}}`;

  it('a JSON number with more digits than allowed is refused as the same value as a string, never rounded', async () => {
    const before = await countRows(t.db, 'payment_links');
    for (const digits of ['10.000000000000000000000000000001', '10.123456789012345678901234567890', '12345678901234567890123', '1.5e-30']) {
      const asNumber = await raw('/v1/payment-link', link(digits));
      const asString = await raw('/v1/payment-link', link(JSON.stringify(digits)));
      assert.equal(asNumber.status, 400, `${digits}: ${JSON.stringify(asNumber.body)}`);
      assert.equal(asString.status, 400, `${digits} as a string`);
      assert.deepEqual(asNumber.body.errors, asString.body.errors, `${digits}: the same refusal as its string`);
    }
    const quantity = await raw(
      '/v1/payment-link',
      '{"title":"Digits","description":"","fiatCurrency":"USD","action":{},"options":{},"cart":{"items":[{"name":"Mug","quantity":1.0000000000000000001,"unitAmount":"5"}]}}',
    );
    assert.equal(quantity.status, 400, 'a count that only rounds to a whole number is not one');
    assert.equal(quantity.body.errors[0].path, 'cart.items.0.quantity');
    assert.equal(await countRows(t.db, 'payment_links'), before);
    const exact = await raw('/v1/payment-link', link('12.5'));
    assert.equal(exact.status, 201, 'a number a double holds exactly is still a number');
    assert.equal(exact.body.fiatAmount, '12.50');
    assert.equal((await raw('/v1/payment-link', link('1e3'))).body.fiatAmount, '1000.00');
  });

  it('a bidirectional override or isolate in a title, an item name or an endpoint description is a 400', async () => {
    const before = await countRows(t.db, 'payment_links');
    for (const control of ['\u202e', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f', '\u061c']) {
      const title = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ title: `Invoice ${control}fdp.exe` }) });
      assert.equal(title.status, 400, JSON.stringify(control));
      assert.equal(title.body.errors[0].path, 'title');
      const item = await call(t.url, 'POST', '/v1/payment-link', {
        key,
        body: standardLinkBody({ fiatAmount: undefined, cart: { items: [{ name: `Mug ${control}gum`, quantity: 1, unitAmount: '5' }] } }),
      });
      assert.equal(item.status, 400);
      assert.equal(item.body.errors[0].path, 'cart.items.0.name');
    }
    assert.equal(await countRows(t.db, 'payment_links'), before);
    const description = await call(t.url, 'POST', '/v1/webhook-endpoint', {
      key,
      body: { url: 'https://shop.example/hooks', description: 'Orders \u202eexe.' },
    });
    assert.equal(description.status, 400);
    const rtl = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ title: 'متجر القهوة', description: 'سطر\u200f أول\nسطر ثان' }) });
    assert.equal(rtl.status, 201, 'right-to-left titles are fine, and a description may carry marks');
  });
});
