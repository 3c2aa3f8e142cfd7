/**
 * Orders a shop creates, and why they exist: a page may say anything about a payment, so only the
 * merchant's server names its order. The first group reproduces the spoof that payment links alone
 * allowed (a 1.00 USD sticker link paid with `reference: "order-1042"` carried that reference to the
 * merchant's webhook and keyed reads) and checks that a keyless `reference` is kept apart as
 * `clientReference`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUsdLink, startSession } from '../support/money.js';
import { backends, call, startTestService, type TestService } from '../support/service.js';
import { startReceiver } from '../support/webhook-receiver.js';

for (const backend of backends()) {
  describe(`orders (${backend})`, () => {
    let t: TestService;
    let key: string;

    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, webhooks: { pollIntervalMs: 50, retryBaseMs: 50 } });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    describe('a page cannot name the merchant’s order', () => {
      it('a keyless start on a 1.00 USD link with reference "order-1042", paid, carries no reference to the webhook or keyed reads', async () => {
        const receiver = await startReceiver();
        try {
          const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
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

          const record = await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key });
          assert.equal(record.body.reference, null);
          assert.equal(record.body.clientReference, 'order-1042');
          const byReference = await call(t.url, 'GET', '/v1/checkout-session?reference=order-1042', { key });
          assert.deepEqual(byReference.body.items, [], 'a lookup by the merchant’s reference finds nothing the page named');
        } finally {
          await receiver.close();
        }
      });
    });
  });
}
