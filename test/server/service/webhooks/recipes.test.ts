/**
 * The webhook recipes of the README and docs/frameworks.md (examples/webhook-express.ts,
 * examples/webhook-next-route.ts, and the order recipe they run, examples/order-webhook.ts) against real deliveries of the service: each
 * verifies with `verifyWebhook` over the raw body and refuses a tampered delivery with a 400; the order
 * recipe ships an order the shop's server made once it is paid, once however often the event comes,
 * and ships nothing for a payment link's session whose page named the order, nor for a payment that is
 * not the order, amount or currency the shop made.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { paylinkClient, paylinkOrderFor, type ShopOrder } from '../../../../examples/node-client.js';
import { memoryShopOrders, shipPaidOrder, type ShipOutcome } from '../../../../examples/order-webhook.js';
import { createWebhookApp } from '../../../../examples/webhook-express.js';
import { createWebhookRoute } from '../../../../examples/webhook-next-route.js';
import type { PaylinkWebhookEvent } from '../../../../src/webhooks/index.js';
import { createUsdLink, eventually, startOrderSession, startSession } from '../../../support/money.js';
import { freePort } from '../../../support/postgres.js';
import { call, startTestService, type TestService } from '../../../support/service.js';
import { startReceiver } from '../../../support/webhook-receiver.js';

describe('webhook recipes', () => {
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 50, retryBaseMs: 50 } });
    ({ key } = await t.newKey());
  });
  after(() => t.close());

  const shopOrder = (id: string, total: string): ShopOrder => ({ id, title: `Order ${id}`, total, currency: 'USD', items: [], paylinkOrderId: null });
  const simulate = (sessionId: string) => call(t.url, 'POST', `/v1/checkout/sessions/${sessionId}/simulate-payment`, { body: {} });

  /** Makes the Paylink order of `order` as the shop's server does, and pays it from a page. */
  async function payOrder(orders: ReturnType<typeof memoryShopOrders>, order: ShopOrder) {
    const made = await paylinkOrderFor(paylinkClient({ baseUrl: t.url, apiKey: key }), order);
    await orders.setPaylinkOrder(order.id, made.id);
    const session = await startOrderSession(t.url, made.id);
    assert.equal((await simulate(session.id)).body.status, 'paid');
    return session.id as string;
  }

  it('Express with express.raw: verifies, ships the paid order once, ships nothing a page named, refuses a tampered delivery', async () => {
    const orders = memoryShopOrders([shopOrder('order-express-1', '3.00'), shopOrder('order-express-2', '1500.00')]);
    const shipped: string[] = [];
    const outcomes: ShipOutcome[] = [];
    const port = await freePort();
    const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', {
      key,
      body: { url: `http://127.0.0.1:${port}/paylink/webhooks`, events: ['checkout.session.paid'] },
    });
    const app = createWebhookApp({
      secret: endpoint.body.secret,
      onEvent: async (event) => outcomes.push(await shipPaidOrder(event, orders, async (order) => void shipped.push(order.id))),
    });
    const shop: Server = await new Promise((resolve) => {
      const server = app.listen(port, '127.0.0.1', () => resolve(server));
    });
    try {
      await payOrder(orders, (await orders.find('order-express-1'))!);
      await eventually(async () => outcomes.length === 1, 10_000, 'the paid event');
      assert.deepEqual(outcomes, ['shipped']);
      assert.deepEqual(shipped, ['order-express-1']);

      // The spoof: a 1.00 USD link, its page saying it pays the 1,500 USD order.
      const slug = await createUsdLink(t.url, key, '1');
      const spoof = await startSession(t.url, slug, { assetId: 'USDT', reference: 'order-express-2' });
      assert.equal((await simulate(spoof.id)).body.status, 'paid');
      await eventually(async () => outcomes.length === 2, 10_000, 'the link’s paid event');
      assert.deepEqual(outcomes, ['shipped', 'not an order'], 'what a page said ships nothing');
      assert.deepEqual(shipped, ['order-express-1']);

      const deliveries = (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.body.id}/deliveries`, { key })).body.items;
      const first = deliveries.at(-1);
      assert.equal(first.status, 'delivered');
      assert.equal(first.attempts[0].statusCode, 204);
      const again = await call(t.url, 'POST', `/v1/webhook-delivery/${first.id}/retry`, { key });
      assert.equal(again.body.status, 'delivered');
      assert.deepEqual(shipped, ['order-express-1'], 'a redelivered event ships nothing more');

      const forged = await fetch(`http://127.0.0.1:${port}/paylink/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'paylink-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
        body: JSON.stringify({ id: 'evt_forged', type: 'checkout.session.paid', createdAt: new Date().toISOString(), data: { object: {} } }),
      });
      assert.equal(forged.status, 400);
      assert.equal(await forged.text(), 'signature_mismatch');
      assert.deepEqual(shipped, ['order-express-1']);
    } finally {
      await new Promise((resolve) => shop.close(resolve));
    }
  });

  it('a Next.js route handler with request.text(): verifies a real delivery and ships the order once; a price that moved ships nothing', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
      const orders = memoryShopOrders([shopOrder('order-next-7', '25.00'), shopOrder('order-next-8', '40.00')]);
      const shipped: string[] = [];
      const outcomes: ShipOutcome[] = [];
      const POST = createWebhookRoute(
        () => endpoint.body.secret,
        async (event: PaylinkWebhookEvent<unknown>) => outcomes.push(await shipPaidOrder(event, orders, async (order) => void shipped.push(order.id))),
      );
      await payOrder(orders, (await orders.find('order-next-7'))!);
      const [delivery] = await receiver.waitFor(1);
      const asRequest = (body: string) =>
        new Request('https://shop.example/paylink/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'paylink-signature': delivery!.headers['paylink-signature'] as string },
          body,
        });
      assert.equal((await POST(asRequest(delivery!.body))).status, 204);
      assert.equal((await POST(asRequest(delivery!.body))).status, 204);
      assert.deepEqual(outcomes, ['shipped', 'already shipped']);
      assert.deepEqual(shipped, ['order-next-7']);
      const tampered = await POST(asRequest(delivery!.body.replace('"25.00"', '"2.50"')));
      assert.equal(tampered.status, 400);
      assert.equal(await tampered.text(), 'signature_mismatch');

      // The shop repriced its order after making the Paylink order: the payment is not for this price.
      const repriced = (await orders.find('order-next-8'))!;
      await payOrder(orders, repriced);
      repriced.total = '45.00';
      const [, second] = await receiver.waitFor(2);
      const signed = new Request('https://shop.example/paylink/webhooks', {
        method: 'POST',
        headers: { 'paylink-signature': second!.headers['paylink-signature'] as string },
        body: second!.body,
      });
      assert.equal((await POST(signed)).status, 204);
      assert.deepEqual(outcomes, ['shipped', 'already shipped', 'does not match']);
      assert.deepEqual(shipped, ['order-next-7']);
    } finally {
      await receiver.close();
    }
  });
});
