/**
 * The README's webhook recipes (examples/webhook-express.ts, examples/webhook-next-route.ts) against
 * real deliveries of the service: each verifies with `verifyWebhook` over the raw body, handles the
 * paid event once even when it is delivered again, and refuses a tampered delivery with a 400.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createWebhookApp } from '../../examples/webhook-express.js';
import { createWebhookRoute } from '../../examples/webhook-next-route.js';
import type { PaylinkWebhookEvent } from '../../src/webhooks/index.js';
import { createUsdLink, eventually, startSession } from '../support/money.js';
import { freePort } from '../support/postgres.js';
import { call, startTestService, type TestService } from '../support/service.js';
import { startReceiver } from '../support/webhook-receiver.js';

describe('webhook recipes', () => {
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 50, retryBaseMs: 50 } });
    ({ key } = await t.newKey());
  });
  after(() => t.close());

  async function paySession(reference: string) {
    const slug = await createUsdLink(t.url, key, '3');
    const session = await startSession(t.url, slug, { assetId: 'USDT', reference });
    await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
    return session.id as string;
  }

  it('Express with express.raw: verifies, handles each event once, refuses a tampered one', async () => {
    const seen: Array<PaylinkWebhookEvent<Record<string, unknown>>> = [];
    const port = await freePort();
    const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `http://127.0.0.1:${port}/paylink/webhooks`, events: ['checkout.session.paid'] } });
    const shop: Server = await new Promise((resolve) => {
      const server = createWebhookApp({ secret: endpoint.body.secret, onEvent: async (event) => void seen.push(event) }).listen(port, '127.0.0.1', () => resolve(server));
    });
    try {
      const sessionId = await paySession('order-express-1');
      await eventually(async () => seen.length === 1, 10_000, 'the paid event');
      assert.equal(seen[0]!.type, 'checkout.session.paid');
      assert.equal(seen[0]!.data.object.id, sessionId);
      assert.equal(seen[0]!.data.object.reference, 'order-express-1');

      const [delivery] = (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.body.id}/deliveries`, { key })).body.items;
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts[0].statusCode, 204);
      const again = await call(t.url, 'POST', `/v1/webhook-delivery/${delivery.id}/retry`, { key });
      assert.equal(again.body.status, 'delivered');
      assert.equal(seen.length, 1, 'a redelivered event is handled once');

      const forged = await fetch(`http://127.0.0.1:${port}/paylink/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'paylink-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
        body: JSON.stringify({ id: 'evt_forged', type: 'checkout.session.paid', createdAt: new Date().toISOString(), data: { object: {} } }),
      });
      assert.equal(forged.status, 400);
      assert.equal(await forged.text(), 'signature_mismatch');
      assert.equal(seen.length, 1);
    } finally {
      await new Promise((resolve) => shop.close(resolve));
    }
  });

  it('a Next.js route handler with request.text(): verifies a real delivery and marks the order paid once', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
      await paySession('order-next-7');
      const [delivery] = await receiver.waitFor(1);
      const paid = new Map<string, string>();
      const POST = createWebhookRoute(() => endpoint.body.secret, {
        markPaid: async (reference, eventId) => {
          if (paid.has(eventId)) return false;
          paid.set(eventId, reference);
          return true;
        },
      });
      const asRequest = (body: string) =>
        new Request('https://shop.example/paylink/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'paylink-signature': delivery!.headers['paylink-signature'] as string },
          body,
        });
      assert.equal((await POST(asRequest(delivery!.body))).status, 204);
      assert.equal((await POST(asRequest(delivery!.body))).status, 204);
      assert.deepEqual([...paid.values()], ['order-next-7']);
      const tampered = await POST(asRequest(delivery!.body.replace('order-next-7', 'order-next-8')));
      assert.equal(tampered.status, 400);
      assert.equal(await tampered.text(), 'signature_mismatch');
    } finally {
      await receiver.close();
    }
  });
});
