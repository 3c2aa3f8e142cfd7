/**
 * Orders a shop creates, and why they exist: a page may say anything about a payment, so only the
 * merchant's server names its order. The first group reproduces the spoof that payment links alone
 * allowed (a 1.00 USD sticker link paid with `reference: "order-1042"` carried that reference to the
 * merchant's webhook and keyed reads) and checks that a keyless `reference` is kept apart as
 * `clientReference`. Then the orders themselves: created with the key (rules, idempotency, one open
 * order per reference), read, listed, cancelled, shown publicly, paid once (two tabs, concurrent
 * payments and starts, on PGlite and PostgreSQL), and expired.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPaylinkClient, PaylinkConflictError, PaylinkGoneError, PaylinkNotFoundError, PaylinkValidationError } from '../../../../src/client/index.js';
import { createPaylinkProxy } from '../../../../src/server/proxy/index.js';
import { expireDueOrders } from '../../../../src/server/service/orders/index.js';
import { expireDueSessions } from '../../../../src/server/service/sessions/index.js';
import {
  assertLedgerMatches,
  balanceOf,
  countRows,
  createUsdLink,
  createUsdOrder,
  eventually,
  startOrderSession,
  startSession,
} from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { startReceiver, type Receiver } from '../../../support/webhook-receiver.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The service clock: real time plus an offset the tests move forward (webhook timers still run). */
function offsetClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => void (offset += ms) };
}

for (const backend of backends()) {
  describe(`orders (${backend})`, () => {
    let t: TestService;
    let key: string;
    const clock = offsetClock();

    before(async () => {
      t = await startTestService(backend, { now: clock.now, payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 50, retryBaseMs: 50 } });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    const simulate = (sessionId: string, body: Record<string, unknown> = {}) =>
      call(t.url, 'POST', `/v1/checkout/sessions/${sessionId}/simulate-payment`, { body });
    const keyed = (method: string, path: string, apiKey = key, body?: unknown) => call(t.url, method, path, { key: apiKey, body });
    const deliveriesOf = (receiver: Receiver) =>
      receiver.received.map((delivery) => JSON.parse(delivery.body) as { type: string; data: { object: Record<string, any> } });

    /** A fresh integrator with an endpoint that hears every event. */
    async function merchantWithWebhooks() {
      const merchant = await t.newKey();
      const receiver = await startReceiver();
      const endpoint = await keyed('POST', '/v1/webhook-endpoint', merchant.key, { url: `${receiver.url}/hooks` });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      return { ...merchant, receiver };
    }

    describe('a page cannot name the merchant’s order', () => {
      it('a keyless start on a 1.00 USD link with reference "order-1042", paid, carries no reference to the webhook or keyed reads', async () => {
        const receiver = await startReceiver();
        try {
          const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', {
            key,
            body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] },
          });
          assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
          const slug = await createUsdLink(t.url, key, '1.00');
          const session = await startSession(t.url, slug, { assetId: 'USDT', reference: 'order-1042' });
          const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
          assert.equal(paid.body.status, 'paid');

          const [delivery] = await receiver.waitFor(1);
          const event = JSON.parse(delivery!.body);
          assert.equal(event.type, 'checkout.session.paid');
          assert.notEqual(event.data.object.reference, 'order-1042', 'the webhook must not name the order the page claimed');
          assert.equal(event.data.object.reference, null);
          assert.equal(event.data.object.clientReference, 'order-1042', 'what the page said, labelled as such');
          assert.equal(event.data.object.orderId, null);

          const record = await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key });
          assert.equal(record.body.reference, null);
          assert.equal(record.body.clientReference, 'order-1042');
          const byReference = await call(t.url, 'GET', '/v1/checkout-session?reference=order-1042', { key });
          assert.deepEqual(byReference.body.items, [], 'a lookup by the merchant’s reference finds nothing the page named');
          assert.deepEqual((await keyed('GET', '/v1/order?reference=order-1042')).body.items, [], 'and no order of that reference exists');
        } finally {
          await receiver.close();
        }
      });
    });

    describe('POST /v1/order', () => {
      it('creates an open order at the shop’s price, with its hosted page, a day to pay it, and no-store', async () => {
        const before = clock.now().getTime();
        const created = await keyed('POST', '/v1/order', key, {
          fiatAmount: 1500,
          fiatCurrency: 'usd',
          reference: ' order-1042 ',
          title: 'Order 1042',
          description: 'Two lamps',
          cart: { items: [{ name: 'Lamp', quantity: 2, unitAmount: '750' }] },
          metadata: { customerId: 'c_77' },
          prepayOptions: { collectAddress: true },
          postpayAction: { successMessage: 'Thank you!', redirectUrl: 'https://shop.example/thanks' },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.headers.get('cache-control'), 'no-store');
        const order = created.body;
        assert.equal(order.status, 'open');
        assert.equal(order.url, `${t.url}/pay/order/${order.id}`);
        assert.equal(order.reference, 'order-1042', 'trimmed');
        assert.equal(order.fiatAmount, '1500.00');
        assert.equal(order.fiatCurrency, 'USD');
        assert.deepEqual(order.cart.items, [{ name: 'Lamp', quantity: 2, unitAmount: '750.00' }]);
        assert.deepEqual(order.metadata, { customerId: 'c_77' });
        assert.deepEqual(order.prepayOptions, { collectAddress: true, collectPhone: false });
        assert.deepEqual(order.postpayAction, {
          redirect: true,
          showConfirmationPage: true,
          successMessage: 'Thank you!',
          redirectUrl: 'https://shop.example/thanks',
        });
        assert.equal(order.paidSessionId, null);
        assert.equal(order.paidAt, null);
        const lifetime = Date.parse(order.expiresAt) - before;
        assert.ok(lifetime >= 24 * HOUR - 5000 && lifetime <= 24 * HOUR + 5000, `expires a day later (${lifetime} ms)`);

        const got = await keyed('GET', `/v1/order/${order.id}`);
        assert.equal(got.status, 200);
        assert.equal(got.headers.get('cache-control'), 'no-store');
        assert.deepEqual(got.body, order);
        const page = await fetch(order.url);
        assert.equal(page.status, 200);
        const html = await page.text();
        assert.match(html, new RegExp(`<paylink-checkout order="${order.id}" api-base="/v1">`));
        assert.ok(!html.includes('order-1042') && !html.includes('c_77'), 'the hosted page shows neither the reference nor the metadata');
      });

      it('refuses bad input with a 400 naming each field, by the rules of core/rules; nothing is stored', async () => {
        const { key: apiKey } = await t.newKey();
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ fiatAmount: '10.00', fiatCurrency: 'USD' }, 'reference'],
          [{ fiatAmount: '10.00', fiatCurrency: 'USD', reference: '   ' }, 'reference'],
          [{ fiatAmount: '10.00', fiatCurrency: 'USD', reference: 'r'.repeat(201) }, 'reference'],
          [{ fiatAmount: '10.001', fiatCurrency: 'USD', reference: 'a' }, 'fiatAmount'],
          [{ fiatAmount: '10.5', fiatCurrency: 'JPY', reference: 'a' }, 'fiatAmount'],
          [{ fiatAmount: '-1', fiatCurrency: 'USD', reference: 'a' }, 'fiatAmount'],
          [{ fiatAmount: 0, fiatCurrency: 'USD', reference: 'a' }, 'fiatAmount'],
          [{ fiatAmount: '1e3', fiatCurrency: 'USD', reference: 'a' }, 'fiatAmount'],
          [{ fiatCurrency: 'USD', reference: 'a' }, 'fiatAmount'],
          [{ fiatAmount: '10', fiatCurrency: 'XXX', reference: 'a' }, 'fiatCurrency'],
          [{ fiatAmount: '10', reference: 'a' }, 'fiatCurrency'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', cart: { items: [{ name: 'Lamp', quantity: 2, unitAmount: '4' }] } }, 'fiatAmount'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', cart: { items: [{ name: '', quantity: 1, unitAmount: '10' }] } }, 'cart.items.0.name'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', metadata: { n: 3 } }, 'metadata'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', postpayAction: { redirectUrl: 'javascript:alert(1)' } }, 'postpayAction.redirectUrl'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', expiresAt: new Date(clock.now().getTime() - MINUTE).toISOString() }, 'expiresAt'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', expiresAt: new Date(clock.now().getTime() + 31 * 24 * HOUR).toISOString() }, 'expiresAt'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a', expiresAt: '2030-02-30T00:00:00Z' }, 'expiresAt'],
          [{ fiatAmount: '10', fiatCurrency: 'USD', reference: 'a\u0000b' }, 'reference'],
        ];
        for (const [body, path] of cases) {
          const response = await keyed('POST', '/v1/order', apiKey, body);
          assert.equal(response.status, 400, `${JSON.stringify(body)} → ${response.status} ${JSON.stringify(response.body)}`);
          assert.equal(response.body.code, 'validation_failed');
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path.startsWith(path)),
            `${JSON.stringify(response.body.errors)} names ${path}`,
          );
        }
        assert.equal((await keyed('GET', '/v1/order', apiKey)).body.meta.totalItems, 0);
        assert.equal((await call(t.url, 'POST', '/v1/order', { body: { fiatAmount: '1', fiatCurrency: 'USD', reference: 'a' } })).status, 401);
        // With items and no amount, the order is priced at their total.
        const byItems = await keyed('POST', '/v1/order', apiKey, {
          fiatCurrency: 'NGN',
          reference: 'items',
          cart: { items: [{ name: 'Rice', quantity: 3, unitAmount: 2500.5 }] },
        });
        assert.equal(byItems.status, 201, JSON.stringify(byItems.body));
        assert.equal(byItems.body.fiatAmount, '7501.50');
      });

      it('one open order per reference: a second is 409 until the first is cancelled', async () => {
        const { key: apiKey } = await t.newKey();
        const first = await createUsdOrder(t.url, apiKey, '20', 'order-7');
        const again = await keyed('POST', '/v1/order', apiKey, { fiatAmount: '20', fiatCurrency: 'USD', reference: 'order-7' });
        assert.equal(again.status, 409);
        assert.equal(again.body.code, 'reference_in_use');
        assert.ok(again.body.message.includes(first.id), 'names the open order');
        // Another integrator's references are its own.
        const { key: otherKey } = await t.newKey();
        await createUsdOrder(t.url, otherKey, '20', 'order-7');
        // Two at once: one order.
        const racing = await Promise.all(
          [1, 2, 3].map(() => keyed('POST', '/v1/order', apiKey, { fiatAmount: '5', fiatCurrency: 'USD', reference: 'order-8' })),
        );
        assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409]);
        assert.equal((await keyed('POST', `/v1/order/${first.id}/cancel`, apiKey)).status, 200);
        const reopened = await keyed('POST', '/v1/order', apiKey, { fiatAmount: '20', fiatCurrency: 'USD', reference: 'order-7' });
        assert.equal(reopened.status, 201, 'a cancelled order frees its reference');
      });

      it('Idempotency-Key: the same key and body give the same order; the same key with another body is 409', async () => {
        const { key: apiKey } = await t.newKey();
        const body = { fiatAmount: '12.50', fiatCurrency: 'USD', reference: 'order-idem', metadata: { a: '1' } };
        const headers = { 'idempotency-key': 'create-order-idem' };
        const first = await call(t.url, 'POST', '/v1/order', { key: apiKey, body, headers });
        assert.equal(first.status, 201);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        const replay = await call(t.url, 'POST', '/v1/order', { key: apiKey, body, headers });
        assert.equal(replay.status, 201);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body, first.body, 'the same order, not a 409 for its open reference');
        const other = await call(t.url, 'POST', '/v1/order', { key: apiKey, body: { ...body, fiatAmount: '13.00' }, headers });
        assert.equal(other.status, 409);
        assert.equal(other.body.code, 'idempotency_conflict');
        const concurrent = await Promise.all(
          [1, 2, 3].map(() =>
            call(t.url, 'POST', '/v1/order', {
              key: apiKey,
              body: { ...body, reference: 'order-idem-2' },
              headers: { 'idempotency-key': 'create-order-idem-2' },
            }),
          ),
        );
        assert.deepEqual(
          concurrent.map((r) => r.status),
          [201, 201, 201],
        );
        assert.equal(new Set(concurrent.map((r) => r.body.id)).size, 1, 'one order for concurrent twins');
        assert.equal((await keyed('GET', '/v1/order', apiKey)).body.meta.totalItems, 2);
        const bad = await call(t.url, 'POST', '/v1/order', { key: apiKey, body, headers: { 'idempotency-key': 'bad key' } });
        assert.equal(bad.status, 400);
      });
    });

    describe('GET /v1/order', () => {
      it('lists the caller’s orders newest first, by status, reference and dates, paged; another integrator’s are invisible', async () => {
        const { key: apiKey } = await t.newKey();
        const a = await createUsdOrder(t.url, apiKey, '1', 'list-a');
        clock.advance(1000);
        const b = await createUsdOrder(t.url, apiKey, '2', 'list-b');
        clock.advance(1000);
        const c = await createUsdOrder(t.url, apiKey, '3', 'list-c');
        await keyed('POST', `/v1/order/${b.id}/cancel`, apiKey);
        const { key: otherKey } = await t.newKey();
        const foreign = await createUsdOrder(t.url, otherKey, '4', 'list-a');

        const ids = async (query: string) => {
          const response = await keyed('GET', `/v1/order${query}`, apiKey);
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.equal(response.headers.get('cache-control'), 'no-store');
          return response.body.items.map((item: { id: string }) => item.id);
        };
        assert.deepEqual(await ids(''), [c.id, b.id, a.id]);
        assert.deepEqual(await ids('?status=open'), [c.id, a.id]);
        assert.deepEqual(await ids('?status=cancelled'), [b.id]);
        assert.deepEqual(await ids('?reference=list-a'), [a.id]);
        assert.deepEqual(await ids('?reference=list'), [], 'an exact reference');
        const today = clock.now().toISOString().slice(0, 10);
        assert.deepEqual(await ids(`?startDate=${today}&endDate=${today}&status=open`), [c.id, a.id]);
        const page = await keyed('GET', '/v1/order?limit=2&page=2', apiKey);
        assert.deepEqual(page.body.meta, { totalItems: 3, itemCount: 1, itemsPerPage: 2, totalPages: 2, currentPage: 2 });
        for (const query of ['?status=done', '?limit=0', '?startDate=yesterday', `?startDate=${today}&endDate=2000-01-01`]) {
          assert.equal((await keyed('GET', `/v1/order${query}`, apiKey)).status, 400, query);
        }

        assert.equal((await keyed('GET', `/v1/order/${foreign.id}`, apiKey)).status, 404, 'another integrator’s order is a 404');
        assert.equal((await keyed('POST', `/v1/order/${foreign.id}/cancel`, apiKey)).status, 404);
        assert.equal((await keyed('GET', `/v1/order/${foreign.id}`, otherKey)).status, 200);
        assert.equal((await keyed('GET', '/v1/order/0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b', apiKey)).status, 404);
        assert.equal((await keyed('GET', '/v1/order/not-an-id', apiKey)).status, 404);
        assert.equal((await call(t.url, 'GET', `/v1/order/${a.id}`)).status, 401);
      });
    });

    describe('the public view and sessions of an order', () => {
      it('shows what the customer pays, never the reference, metadata or customer; unknown orders are 404', async () => {
        const order = await createUsdOrder(t.url, key, '1500', 'order-secret-ref', {
          title: 'Order 1042',
          description: 'Two lamps',
          metadata: { note: 'secret-meta' },
          cart: { items: [{ name: 'Lamp', quantity: 2, unitAmount: '750' }] },
          prepayOptions: { collectPhone: true },
        });
        const view = await call(t.url, 'GET', `/v1/checkout/orders/${order.id}`);
        assert.equal(view.status, 200);
        assert.equal(view.headers.get('access-control-allow-origin'), '*');
        assert.deepEqual(Object.keys(view.body).sort(), [
          'assets',
          'cart',
          'description',
          'expiresAt',
          'fiatAmount',
          'fiatCurrency',
          'id',
          'merchantName',
          'prepayOptions',
          'sandbox',
          'state',
          'title',
          'url',
        ]);
        assert.equal(view.body.state, 'open');
        assert.equal(view.body.fiatAmount, '1500.00');
        assert.deepEqual(view.body.prepayOptions, { collectAddress: false, collectPhone: true });
        assert.deepEqual(
          view.body.assets.map((asset: { assetId: string }) => asset.assetId),
          ['USDT', 'CNGN'],
        );
        const text = JSON.stringify(view.body);
        assert.ok(!text.includes('order-secret-ref') && !text.includes('secret-meta'));
        for (const path of ['/v1/checkout/orders/0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b', '/v1/checkout/orders/nope']) {
          const missing = await call(t.url, 'GET', path);
          assert.equal(missing.status, 404, path);
          assert.equal(missing.body.code, 'not_found');
          assert.equal((await call(t.url, 'POST', `${path}/sessions`, { body: { assetId: 'USDT' } })).status, 404);
        }
        assert.equal((await fetch(`${t.url}/pay/order/0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b`)).status, 404);
      });

      it('a session is for the order’s own amount, carries its reference and metadata, and keeps what the page said apart', async () => {
        const order = await createUsdOrder(t.url, key, '1500', 'order-amount', { metadata: { cart: 'c_9' }, prepayOptions: { collectPhone: true } });
        const start = (body: Record<string, unknown>) => call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body });
        const phone = { phone: '+2348012345678' };
        const refused: Array<[Record<string, unknown>, string]> = [
          [{ assetId: 'USDT', fiatAmount: '1.00', customer: phone }, 'fiatAmount'],
          [{ assetId: 'USDT', fiatCurrency: 'NGN', customer: phone }, 'fiatCurrency'],
          [{ assetId: 'USDT' }, 'customer.phone'],
          [{ assetId: 'BTC', customer: phone }, 'assetId'],
          [{ assetId: 'USDT', blockchainId: 'ethereum', customer: phone }, 'blockchainId'],
          [{ assetId: 'USDT', customer: phone, reference: 'r'.repeat(201) }, 'reference'],
        ];
        for (const [body, path] of refused) {
          const response = await start(body);
          assert.equal(response.status, 400, JSON.stringify(body));
          assert.ok(
            response.body.errors.some((e: { path: string }) => e.path === path),
            `${JSON.stringify(response.body.errors)} names ${path}`,
          );
        }
        assert.equal(await countRows(t.db, 'checkout_sessions', 'order_id = $1', [order.id]), 0);

        const session = await startOrderSession(t.url, order.id, {
          assetId: 'usdt',
          blockchainId: 'BSC',
          fiatAmount: 1500,
          customer: phone,
          reference: 'order-999',
        });
        assert.equal(session.orderId, order.id);
        assert.equal(session.slug, null);
        assert.equal(session.fiatAmount, '1500.00');
        assert.equal(session.fiatCurrency, 'USD');
        assert.equal(session.cryptoAmount, '1500.000000');
        assert.ok(!('reference' in session) && !('metadata' in session), 'the keyless answer carries neither');
        const record = (await keyed('GET', `/v1/checkout-session/${session.id}`)).body;
        assert.equal(record.orderId, order.id);
        assert.equal(record.linkId, null);
        assert.equal(record.reference, 'order-amount', 'the order’s reference, whatever the page sent');
        assert.equal(record.clientReference, 'order-999');
        assert.deepEqual(record.metadata, { cart: 'c_9' });
        assert.equal(record.customer.phone, '+2348012345678');
        assert.deepEqual(
          (await keyed('GET', '/v1/checkout-session?reference=order-amount')).body.items.map((item: { id: string }) => item.id),
          [session.id],
        );
      });

      it('two tabs paying one order: one session paid, the other’s transfer late; the balance has both; the order is paid and announced once', async () => {
        const merchant = await merchantWithWebhooks();
        try {
          const order = await createUsdOrder(t.url, merchant.key, '25', 'order-two-tabs', { metadata: { cart: 'c_2' } });
          const tabA = await startOrderSession(t.url, order.id);
          const tabB = await startOrderSession(t.url, order.id);
          assert.equal((await simulate(tabA.id)).body.status, 'paid');
          const paidOrder = (await keyed('GET', `/v1/order/${order.id}`, merchant.key)).body;
          assert.equal(paidOrder.status, 'paid');
          assert.equal(paidOrder.paidSessionId, tabA.id);
          assert.ok(paidOrder.paidAt);
          assert.equal((await call(t.url, 'GET', `/v1/checkout/sessions/${tabB.id}`)).body.status, 'expired', 'the other tab closes: nothing more to pay');
          assert.equal((await call(t.url, 'GET', `/v1/checkout/orders/${order.id}`)).body.state, 'paid');

          // The customer pays the second tab anyway: credited, as a late payment of that session.
          const late = await simulate(tabB.id);
          assert.equal(late.status, 200, JSON.stringify(late.body));
          assert.equal(late.body.status, 'expired');
          const recordB = (await keyed('GET', `/v1/checkout-session/${tabB.id}`, merchant.key)).body;
          assert.equal(recordB.lateAmount, '25.000000');
          assert.equal(recordB.paidAmount, '0.000000');
          assert.equal(recordB.transfers[0].late, true);
          assert.equal((await balanceOf(t.url, merchant.key)).available, '50.000000', 'both transfers are the merchant’s money');
          await assertLedgerMatches(t.db, merchant.integratorId);
          const again = (await keyed('GET', `/v1/order/${order.id}`, merchant.key)).body;
          assert.deepEqual(again, paidOrder, 'still paid once, by the first session');

          await merchant.receiver.waitFor(4);
          // Four deliveries were written, none is pending, and a round of the worker sends nothing more.
          const deliveries = (where: string) =>
            countRows(t.db, 'webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id', `e.integrator_id = $1 AND ${where}`, [
              merchant.integratorId,
            ]);
          await eventually(async () => (await deliveries("d.status = 'pending'")) === 0, 10_000, 'every delivery recorded');
          assert.equal(await deliveries('true'), 4, 'one delivery per event');
          await t.service.webhookWorker!.runOnce();
          const events = deliveriesOf(merchant.receiver);
          const types = events.map((event) => event.type).sort();
          assert.deepEqual(types, ['checkout.session.expired', 'checkout.session.paid', 'order.paid', 'payment.late']);
          const orderPaid = events.find((event) => event.type === 'order.paid')!;
          assert.deepEqual(orderPaid.data.object, paidOrder, 'order.paid carries the order as GET returns it');
          for (const event of events.filter((e) => e.type !== 'order.paid')) {
            const object = event.data.object;
            assert.equal(object.orderId, order.id, event.type);
            assert.equal(object.reference, 'order-two-tabs', event.type);
            assert.deepEqual(object.metadata, { cart: 'c_2' }, event.type);
            assert.equal(object.fiatAmount, '25.00', event.type);
            assert.equal(object.fiatCurrency, 'USD', event.type);
            assert.equal(object.clientReference, null, event.type);
          }
          assert.equal(events.find((e) => e.type === 'checkout.session.paid')!.data.object.id, tabA.id);
          assert.equal(events.find((e) => e.type === 'payment.late')!.data.object.id, tabB.id);
          assert.equal(await countRows(t.db, 'webhook_events', "type = 'order.paid' AND body LIKE $1", [`%${order.id}%`]), 1, 'order.paid written once');
          // Once paid, no new session starts.
          const after = await call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body: { assetId: 'USDT' } });
          assert.equal(after.status, 409);
          assert.equal(after.body.code, 'order_paid');
        } finally {
          await merchant.receiver.close();
        }
      });

      it('two tabs paying at the same moment: one pays the order, the other is late (row lock on the order)', async () => {
        for (let round = 0; round < 3; round++) {
          const merchant = await t.newKey();
          const order = await createUsdOrder(t.url, merchant.key, '10', `order-race-${round}`);
          const tabs = await Promise.all([1, 2, 3].map(() => startOrderSession(t.url, order.id)));
          const paid = await Promise.all(tabs.map((tab) => simulate(tab.id)));
          assert.deepEqual(
            paid.map((r) => r.status),
            [200, 200, 200],
            JSON.stringify(paid.map((r) => r.body)),
          );
          const records = await Promise.all(tabs.map(async (tab) => (await keyed('GET', `/v1/checkout-session/${tab.id}`, merchant.key)).body));
          assert.equal(records.filter((r) => r.status === 'paid').length, 1, 'one session pays the order');
          assert.equal(records.filter((r) => r.status === 'expired' && r.lateAmount === '10.000000').length, 2, 'the others are late');
          const order2 = (await keyed('GET', `/v1/order/${order.id}`, merchant.key)).body;
          assert.equal(order2.status, 'paid');
          assert.equal(order2.paidSessionId, records.find((r) => r.status === 'paid')!.id);
          assert.equal((await balanceOf(t.url, merchant.key)).available, '30.000000');
          await assertLedgerMatches(t.db, merchant.integratorId);
        }
      });

      it('concurrent session starts on a paid order are each a 409; starts racing the payment either 409 or close', async () => {
        const order = await createUsdOrder(t.url, key, '3', 'order-starts');
        const first = await startOrderSession(t.url, order.id);
        const racing = [...Array(6)].map(() => call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body: { assetId: 'USDT' } }));
        const [payment, ...starts] = await Promise.all([simulate(first.id), ...racing]);
        assert.equal(payment.body.status, 'paid');
        for (const start of starts) {
          if (start.status === 409) continue;
          assert.equal(start.status, 201, JSON.stringify(start.body));
          // Started before the payment committed: closed by it.
          assert.equal((await call(t.url, 'GET', `/v1/checkout/sessions/${start.body.id}`)).body.status, 'expired');
        }
        const after = await Promise.all(
          [...Array(6)].map(() => call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body: { assetId: 'USDT' } })),
        );
        assert.deepEqual(
          after.map((r) => [r.status, r.body.code]),
          [...Array(6)].map(() => [409, 'order_paid']),
        );
        assert.equal((await keyed('POST', `/v1/order/${order.id}/cancel`)).status, 409, 'a paid order cannot be cancelled');
      });

      it('cancel: sessions close, a new start is 410, a later transfer is late; cancelling again answers the order as it is', async () => {
        const order = await createUsdOrder(t.url, key, '8', 'order-cancel');
        const open = await startOrderSession(t.url, order.id);
        const cancelled = await keyed('POST', `/v1/order/${order.id}/cancel`);
        assert.equal(cancelled.status, 200);
        assert.equal(cancelled.headers.get('cache-control'), 'no-store');
        assert.equal(cancelled.body.status, 'cancelled');
        assert.ok(cancelled.body.cancelledAt);
        assert.equal((await call(t.url, 'GET', `/v1/checkout/sessions/${open.id}`)).body.status, 'expired');
        const start = await call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body: { assetId: 'USDT' } });
        assert.equal(start.status, 410);
        assert.equal(start.body.code, 'order_cancelled');
        assert.equal((await call(t.url, 'GET', `/v1/checkout/orders/${order.id}`)).body.state, 'closed', 'the customer sees it closed');
        const before = (await balanceOf(t.url, key))?.available ?? '0';
        assert.equal((await simulate(open.id)).status, 200);
        const record = (await keyed('GET', `/v1/checkout-session/${open.id}`)).body;
        assert.equal(record.lateAmount, '8.000000', 'credited as late');
        assert.notEqual((await balanceOf(t.url, key)).available, before);
        const again = await keyed('POST', `/v1/order/${order.id}/cancel`);
        assert.equal(again.status, 200);
        assert.deepEqual(again.body, cancelled.body, 'a retried cancel changes nothing');
        assert.equal((await keyed('GET', `/v1/order/${order.id}`)).body.status, 'cancelled', 'never paid by a late transfer');
      });

      it('expiry: quotes end with the order; the sweep expires the order once its sessions are closed; then 410 and the reference is free', async () => {
        const { key: apiKey } = await t.newKey();
        const expiresAt = new Date(clock.now().getTime() + 5 * MINUTE).toISOString();
        const order = await createUsdOrder(t.url, apiKey, '4', 'order-expiry', { expiresAt });
        assert.equal(order.expiresAt, expiresAt);
        const session = await startOrderSession(t.url, order.id);
        assert.equal(session.expiresAt, expiresAt, 'the quote never outlives its order');
        clock.advance(5 * MINUTE + 1000);
        // The sessions first; the order expires once none of its sessions can still pay it.
        assert.equal(await expireDueOrders({ db: t.db, now: clock.now }), 0, 'not while a session is still open');
        await expireDueSessions({ db: t.db, now: clock.now });
        assert.ok((await expireDueOrders({ db: t.db, now: clock.now })) >= 1);
        assert.equal((await keyed('GET', `/v1/order/${order.id}`, apiKey)).body.status, 'expired');
        const start = await call(t.url, 'POST', `/v1/checkout/orders/${order.id}/sessions`, { body: { assetId: 'USDT' } });
        assert.equal(start.status, 410);
        assert.equal(start.body.code, 'order_expired');
        const cancel = await keyed('POST', `/v1/order/${order.id}/cancel`, apiKey);
        assert.equal(cancel.status, 200);
        assert.equal(cancel.body.status, 'expired', 'cancelling an expired order changes nothing');
        await createUsdOrder(t.url, apiKey, '4', 'order-expiry');

        // Read before any sweep: a due order with no open session reads as expired at once.
        const lazy = await createUsdOrder(t.url, apiKey, '4', 'order-lazy', { expiresAt: new Date(clock.now().getTime() + MINUTE).toISOString() });
        clock.advance(2 * MINUTE);
        assert.equal((await call(t.url, 'GET', `/v1/checkout/orders/${lazy.id}`)).body.state, 'closed');
        const reused = await keyed('POST', '/v1/order', apiKey, { fiatAmount: '4', fiatCurrency: 'USD', reference: 'order-lazy' });
        assert.equal(reused.status, 201, 'a due order frees its reference');
      });
    });

    describe('client.orders and client.checkout, directly and through the proxy', () => {
      it('create (idempotent with idempotencyKey), list, get and cancel; the public view and a session; errors as classes', async () => {
        const { key: apiKey } = await t.newKey();
        const direct = createPaylinkClient({ baseUrl: t.url, apiKey });
        const proxy = createPaylinkProxy({ upstream: t.url, apiKey, adminToken: 'orders-admin-token-of-32-characters-or-more', rateLimit: false });
        const viaProxy = createPaylinkClient({
          baseUrl: 'http://shop.test/paylink/admin',
          token: 'orders-admin-token-of-32-characters-or-more',
          fetch: (input, init) => proxy(new Request(input, init)),
        });
        for (const [name, client] of [
          ['direct', direct],
          ['proxy', viaProxy],
        ] as const) {
          const body = { fiatAmount: '42.00', fiatCurrency: 'USD', reference: `client-${name}`, metadata: { via: name } };
          const order = await client.orders.create(body, { idempotencyKey: `client-order-${name}` });
          assert.equal(order.status, 'open', name);
          assert.equal((await client.orders.create(body, { idempotencyKey: `client-order-${name}` })).id, order.id, `${name}: a retry gets the same order`);
          await assert.rejects(client.orders.create({ ...body, fiatAmount: '1' }, { idempotencyKey: `client-order-${name}` }), PaylinkConflictError);
          await assert.rejects(client.orders.create(body), (error) => error instanceof PaylinkConflictError && error.code === 'reference_in_use');
          await assert.rejects(
            client.orders.create({ ...body, reference: '' }),
            (error) => error instanceof PaylinkValidationError && error.errors[0]!.path === 'reference',
          );
          assert.deepEqual(await client.orders.get(order.id), order);
          const page = await client.orders.list({ status: 'open', reference: `client-${name}`, startDate: new Date(Date.parse(order.createdAt) - 1000) });
          assert.deepEqual(
            page.items.map((item) => item.id),
            [order.id],
          );

          const view = await client.checkout.getOrder(order.id);
          assert.equal(view.fiatAmount, '42.00');
          assert.equal('reference' in view, false);
          const session = await client.checkout.startOrderSession(order.id, { assetId: 'USDT' });
          assert.equal(session.orderId, order.id);
          const record = await client.sessions.get(session.id);
          assert.equal(record.reference, `client-${name}`);

          assert.equal((await client.orders.cancel(order)).status, 'cancelled');
          await assert.rejects(
            client.checkout.startOrderSession(order.id, { assetId: 'USDT' }),
            (error) => error instanceof PaylinkGoneError && error.code === 'order_cancelled',
          );
          await assert.rejects(client.orders.get('0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b'), PaylinkNotFoundError);
        }
      });
    });

    it('the OpenAPI document has the order paths and says a keyless reference is stored as clientReference', async () => {
      const document = (await call(t.url, 'GET', '/v1/openapi.json')).body;
      for (const path of ['/v1/order', '/v1/order/{id}', '/v1/order/{id}/cancel', '/v1/checkout/orders/{id}', '/v1/checkout/orders/{id}/sessions'])
        assert.ok(document.paths[path], path);
      assert.match(document.paths['/v1/checkout/{slug}/sessions'].post.description, /clientReference/);
      assert.ok(document.components.schemas.Order);
    });
  });
}
