/**
 * Webhook deliveries end to end: real changes (payments, expiry, payouts) reach a real
 * HTTP endpoint on loopback, signed so that `verifyWebhook` accepts them with the endpoint's secret,
 * once per event, retried with exponential backoff under one event id, logged, retried by hand, and
 * given up after 3 days. Private endpoints allowed (`allowPrivate`, as `PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`), for the loopback receiver.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_FAILING_ADDRESS } from '../../../../src/server/chain/sandbox/index.js';
import { expireDueSessions } from '../../../../src/server/service/sessions/index.js';
import { settleIncomingTransfer } from '../../../../src/server/service/money-in/index.js';
import { verifyWebhook, type PaylinkWebhookEvent } from '../../../../src/webhooks/index.js';
import { GOOD_ADDRESS, countRows, createUsdLink, eventually, fund, startSession } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../../../support/webhook-receiver.js';

const RETRY_BASE_MS = 40;
const DAY = 24 * 60 * 60 * 1000;

/** The service clock: real time plus an offset the tests move forward (so timers and due times still pass). */
function offsetClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => void (offset += ms) };
}

const eventOf = (delivery: ReceivedDelivery) => JSON.parse(delivery.body) as PaylinkWebhookEvent<Record<string, any>>;

for (const backend of backends()) {
  describe(`webhook deliveries (${backend})`, () => {
    let t: TestService;
    let key: string;
    const clock = offsetClock();

    before(async () => {
      t = await startTestService(backend, {
        now: clock.now,
        payouts: { pollIntervalMs: 20 },
        webhooks: { allowPrivate: true, retryBaseMs: RETRY_BASE_MS, pollIntervalMs: 200, timeoutMs: 1500, leaseMs: 5000 },
      });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    /** A receiver and an endpoint of `apiKey` pointing at it; returns both and the secret. */
    async function endpointFor(apiKey: string, body: Record<string, unknown> = {}, receiver?: Receiver) {
      const target = receiver ?? (await startReceiver());
      const created = await call(t.url, 'POST', '/v1/webhook-endpoint', { key: apiKey, body: { url: `${target.url}/hooks`, ...body } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { receiver: target, endpoint: created.body as { id: string; secret: string } };
    }

    /**
     * Waits until no delivery to `endpointId` is pending any more, then has the worker run a round:
     * whatever reaches the endpoint after that is more than its deliveries say.
     */
    async function deliveriesDone(apiKey: string, endpointId: string) {
      const pending = async () =>
        (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpointId}/deliveries?status=pending`, { key: apiKey })).body.meta.totalItems as number;
      await eventually(async () => (await pending()) === 0, 10_000, 'no delivery pending');
      await t.service.webhookWorker!.runOnce();
    }

    it('a payment that settles sends exactly one checkout.session.paid, signed with the endpoint secret, its object as GET returns it', async () => {
      const { key: apiKey } = await t.newKey();
      const { receiver, endpoint } = await endpointFor(apiKey);
      try {
        const slug = await createUsdLink(t.url, apiKey, '9', { options: { collectAddress: true, collectPhone: true } });
        const session = await startSession(t.url, slug, {
          assetId: 'USDT',
          reference: 'order-1042',
          metadata: { cart: 'c_77' },
          customer: { address: '12 Marina Road, Lagos', phone: '+234 801 234 5678' },
        });
        const simulate = (amount: string) => call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount } });
        assert.equal((await simulate('4')).status, 200);
        const [underpaid] = await receiver.waitFor(1);
        assert.equal((await simulate('5')).status, 200);
        const [, paid] = await receiver.waitFor(2);
        const afterPaid = (await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key: apiKey })).body;

        // A transfer after settlement is late: its own event; the session is not paid again.
        await settleIncomingTransfer(
          { db: t.db, now: clock.now },
          { blockchainId: 'bsc', txHash: `0x${randomBytes(32).toString('hex')}`, assetId: 'USDT', toAddress: session.payAddress, amount: '1', sandbox: true },
        );
        const [, , late] = await receiver.waitFor(3);

        const events = await Promise.all(
          [underpaid!, paid!, late!].map((delivery) =>
            verifyWebhook<Record<string, any>>(delivery.body, delivery.headers['paylink-signature'] as string, endpoint.secret, { now: clock.now() }),
          ),
        );
        assert.deepEqual(
          events.map((event) => event.type),
          ['checkout.session.underpaid', 'checkout.session.paid', 'payment.late'],
        );
        assert.equal(new Set(events.map((event) => event.id)).size, 3, 'one id per event');
        for (const [index, delivery] of [underpaid!, paid!, late!].entries()) {
          assert.equal(delivery.method, 'POST');
          assert.equal(delivery.path, '/hooks');
          assert.equal(delivery.headers['paylink-event-id'], events[index]!.id);
          assert.match(events[index]!.id, /^evt_[0-9a-f]{24}$/);
          assert.equal(delivery.headers['content-type'], 'application/json');
        }
        assert.deepEqual(events[1]!.data.object, afterPaid, 'the paid event carries the session as the keyed GET showed it then');
        assert.equal(events[1]!.data.object.customer.phone, '+2348012345678');
        assert.equal(events[1]!.data.object.clientReference, 'order-1042', 'what the page said');
        assert.equal(events[1]!.data.object.reference, null, 'never the merchant’s reference');
        assert.equal(events[0]!.data.object.status, 'underpaid');
        assert.equal(events[2]!.data.object.lateAmount, '1.000000');

        const paidRows = await countRows(t.db, 'webhook_events', "type = 'checkout.session.paid' AND body LIKE $1", [`%${session.id}%`]);
        assert.equal(paidRows, 1, 'the outbox holds one paid event');
        await deliveriesDone(apiKey, endpoint.id);
        assert.equal(receiver.received.length, 3, 'nothing is sent twice once delivered');

        // A tampered body, or another endpoint's secret, fails verification.
        await assert.rejects(
          verifyWebhook(paid!.body.replace('"paid"', '"overpaid"'), paid!.headers['paylink-signature'] as string, endpoint.secret, { now: clock.now() }),
        );
        await assert.rejects(verifyWebhook(paid!.body, paid!.headers['paylink-signature'] as string, 'whsec_another', { now: clock.now() }));
      } finally {
        await receiver.close();
      }
    });

    it('an endpoint that fails 3 times then succeeds gets the event 4 times with one id, backing off exponentially', async () => {
      const { key: apiKey } = await t.newKey();
      const receiver = await startReceiver((_, index) => (index < 3 ? 500 : 204));
      const { endpoint } = await endpointFor(apiKey, { events: ['checkout.session.paid'] }, receiver);
      try {
        const slug = await createUsdLink(t.url, apiKey, '3');
        const session = await startSession(t.url, slug);
        await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
        const deliveries = await receiver.waitFor(4);
        assert.equal(new Set(deliveries.map((d) => d.headers['paylink-event-id'])).size, 1, 'the same event id every time');
        assert.equal(new Set(deliveries.map((d) => d.body)).size, 1, 'the same body every time');
        for (const delivery of deliveries)
          await verifyWebhook(delivery.body, delivery.headers['paylink-signature'] as string, endpoint.secret, { now: clock.now() });
        const gaps = deliveries.slice(1).map((delivery, index) => delivery.at - deliveries[index]!.at);
        gaps.forEach((gap, index) =>
          assert.ok(gap >= RETRY_BASE_MS * 2 ** index * 0.9, `retry ${index + 1} came after ${gap} ms, before ${RETRY_BASE_MS * 2 ** index} ms`),
        );

        // The receiver has the 4th attempt before the service has recorded its 204: wait for the record.
        await eventually(
          async () => (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey })).body.items[0]?.status !== 'pending',
        );
        const log = await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey });
        assert.equal(log.status, 200);
        assert.equal(log.body.items.length, 1);
        const delivery = log.body.items[0];
        assert.equal(delivery.status, 'delivered');
        assert.equal(delivery.eventType, 'checkout.session.paid');
        assert.equal(delivery.eventId, deliveries[0]!.headers['paylink-event-id']);
        assert.equal(delivery.attemptCount, 4);
        assert.deepEqual(
          delivery.attempts.map((a: { statusCode: number }) => a.statusCode),
          [500, 500, 500, 204],
        );
        assert.deepEqual(
          delivery.attempts.map((a: { error: string | null }) => a.error),
          ['HTTP 500', 'HTTP 500', 'HTTP 500', null],
        );
        assert.equal(delivery.nextAttemptAt, null);
        assert.ok(delivery.deliveredAt);
        await deliveriesDone(apiKey, endpoint.id);
        assert.equal(receiver.received.length, 4, 'nothing is sent once delivered');
      } finally {
        await receiver.close();
      }
    });

    it('a redirect is not followed and silence past the timeout fails the attempt; both are retried', async () => {
      const { key: apiKey } = await t.newKey();
      const elsewhere = await startReceiver();
      const receiver = await startReceiver((_, index, response) => {
        if (index === 0) {
          response.writeHead(307, { location: `${elsewhere.url}/stolen` }).end();
          return 'handled';
        }
        if (index === 1) return 'handled'; // never answers
        return 200;
      });
      const { endpoint } = await endpointFor(apiKey, { events: ['checkout.session.paid'] }, receiver);
      try {
        const slug = await createUsdLink(t.url, apiKey, '2');
        const session = await startSession(t.url, slug);
        await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
        await receiver.waitFor(3, 15_000);
        await eventually(
          async () => (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey })).body.items[0].status === 'delivered',
        );
        const [delivery] = (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey })).body.items;
        assert.equal(delivery.attempts[0].statusCode, 307);
        assert.match(delivery.attempts[0].error, /redirects are not followed/);
        assert.equal(delivery.attempts[1].statusCode, null);
        assert.match(delivery.attempts[1].error, /No answer within 1.5 s/);
        assert.ok(delivery.attempts[1].durationMs >= 1400, String(delivery.attempts[1].durationMs));
        assert.equal(elsewhere.received.length, 0, 'the redirect target never heard from the service');
      } finally {
        await Promise.all([receiver.close(), elsewhere.close()]);
      }
    });

    it('an endpoint that takes its time holds up no other delivery', async () => {
      const slowService = await startTestService(backend, { payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 200 } });
      const { key: slowKey } = await slowService.newKey();
      let answerSlow: (() => void) | undefined;
      const slow = await startReceiver((_, __, response) => {
        answerSlow = () => response.writeHead(200).end();
        return 'handled';
      });
      const fast = await startReceiver();
      try {
        for (const [target, events] of [
          [slow, ['checkout.session.paid']],
          [fast, ['checkout.session.underpaid']],
        ] as const)
          assert.equal(
            (await call(slowService.url, 'POST', '/v1/webhook-endpoint', { key: slowKey, body: { url: `${target.url}/hooks`, events } })).status,
            201,
          );
        const slug = await createUsdLink(slowService.url, slowKey, '2');
        const paid = await startSession(slowService.url, slug);
        await call(slowService.url, 'POST', `/v1/checkout/sessions/${paid.id}/simulate-payment`, { body: {} });
        await slow.waitFor(1);
        // The paid event's endpoint has not answered; an event after it still goes out.
        const short = await startSession(slowService.url, slug);
        await call(slowService.url, 'POST', `/v1/checkout/sessions/${short.id}/simulate-payment`, { body: { amount: '1' } });
        await fast.waitFor(1);
        answerSlow!();
        const endpoints = (await call(slowService.url, 'GET', '/v1/webhook-endpoint', { key: slowKey })).body.items;
        for (const endpoint of endpoints)
          await eventually(
            async () =>
              (await call(slowService.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: slowKey })).body.items[0]?.status === 'delivered',
          );
        const slowLog = (
          await call(slowService.url, 'GET', `/v1/webhook-endpoint/${endpoints.find((e: { url: string }) => e.url.startsWith(slow.url)).id}/deliveries`, {
            key: slowKey,
          })
        ).body.items[0];
        assert.equal(slowLog.attemptCount, 1, 'the slow endpoint answered its one attempt, within the timeout');
      } finally {
        await Promise.all([slow.close(), fast.close()]);
        await slowService.close();
      }
    });

    it('expiry and payouts are announced: checkout.session.expired, withdrawal.succeeded, withdrawal.failed', async () => {
      const { key: apiKey } = await t.newKey();
      const { receiver, endpoint } = await endpointFor(apiKey, { events: ['checkout.session.expired', 'withdrawal.succeeded', 'withdrawal.failed'] });
      try {
        await fund(t.url, apiKey, '20'); // a paid session: not subscribed, not sent
        const slug = await createUsdLink(t.url, apiKey, '5');
        const session = await startSession(t.url, slug);
        clock.advance(16 * 60 * 1000);
        assert.ok((await expireDueSessions({ db: t.db, now: clock.now })) >= 1);
        const [expired] = await receiver.waitFor(1);
        const expiredEvent = await verifyWebhook<Record<string, any>>(expired!.body, expired!.headers['paylink-signature'] as string, endpoint.secret, {
          now: clock.now(),
        });
        assert.equal(expiredEvent.type, 'checkout.session.expired');
        assert.deepEqual(expiredEvent.data.object, (await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key: apiKey })).body);

        const ok = await call(t.url, 'POST', '/v1/withdrawal', {
          key: apiKey,
          body: { amount: '5', assetId: 'USDT', blockchainId: 'bsc', address: GOOD_ADDRESS },
        });
        const failing = await call(t.url, 'POST', '/v1/withdrawal', {
          key: apiKey,
          body: { amount: '4', assetId: 'USDT', blockchainId: 'bsc', address: SANDBOX_FAILING_ADDRESS },
        });
        assert.equal(ok.status, 200);
        assert.equal(failing.status, 200);
        const deliveries = await receiver.waitFor(3);
        const events = deliveries.slice(1).map(eventOf);
        const succeeded = events.find((event) => event.type === 'withdrawal.succeeded');
        const failed = events.find((event) => event.type === 'withdrawal.failed');
        assert.deepEqual(succeeded?.data.object, (await call(t.url, 'GET', `/v1/withdrawal/${ok.body.id}`, { key: apiKey })).body);
        assert.deepEqual(failed?.data.object, (await call(t.url, 'GET', `/v1/withdrawal/${failing.body.id}`, { key: apiKey })).body);
        assert.equal(failed?.data.object.status, 'failed');
        assert.equal(await countRows(t.db, 'webhook_deliveries', 'endpoint_id = $1', [endpoint.id]), 3, 'no delivery for the paid session of fund()');
        await deliveriesDone(apiKey, endpoint.id);
        assert.equal(receiver.received.length, 3, 'the paid session of fund() was not sent: not subscribed');
      } finally {
        await receiver.close();
      }
    });

    it("an inactive endpoint, and another integrator's, receive nothing", async () => {
      const { key: apiKey } = await t.newKey();
      const { key: otherKey } = await t.newKey();
      const { receiver, endpoint } = await endpointFor(apiKey);
      const other = await endpointFor(otherKey);
      try {
        assert.equal((await call(t.url, 'PATCH', '/v1/webhook-endpoint', { key: apiKey, body: { id: endpoint.id, isActive: false } })).body.isActive, false);
        await fund(t.url, apiKey, '1');
        // The event and its deliveries are written with the payment: none for either endpoint.
        assert.equal(await countRows(t.db, 'webhook_deliveries', 'endpoint_id = $1', [endpoint.id]), 0, 'no delivery is queued for an inactive endpoint');
        assert.equal(await countRows(t.db, 'webhook_deliveries', 'endpoint_id = $1', [other.endpoint.id]), 0, "none for another integrator's endpoint");
        await t.service.webhookWorker!.runOnce(); // a round of the worker: nothing for either to send
        assert.equal(receiver.received.length, 0);
        assert.equal(other.receiver.received.length, 0);
      } finally {
        await Promise.all([receiver.close(), other.receiver.close()]);
      }
    });

    it('send test event and manual retry: attempted at once, answered with the delivery after the attempt', async () => {
      const { key: apiKey } = await t.newKey();
      const receiver = await startReceiver((_, index) => (index === 0 ? 503 : 200));
      const { endpoint } = await endpointFor(apiKey, {}, receiver);
      try {
        const test = await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.id}/test`, { key: apiKey });
        assert.equal(test.status, 200, JSON.stringify(test.body));
        assert.equal(test.body.eventType, 'webhook.test');
        assert.equal(test.body.status, 'failed', 'a test is not retried on its own');
        assert.equal(test.body.attempts[0].statusCode, 503);
        const event = await verifyWebhook<Record<string, any>>(
          receiver.received[0]!.body,
          receiver.received[0]!.headers['paylink-signature'] as string,
          endpoint.secret,
          { now: clock.now() },
        );
        assert.equal(event.type, 'webhook.test');
        assert.equal(event.data.object.id, endpoint.id);

        const retried = await call(t.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key: apiKey });
        assert.equal(retried.status, 200);
        assert.equal(retried.body.status, 'delivered');
        assert.equal(retried.body.attemptCount, 2);
        assert.equal(receiver.received[1]!.headers['paylink-event-id'], event.id, 'a retry sends the same event');
        const again = await call(t.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key: apiKey });
        assert.equal(again.body.attemptCount, 3, 'a delivered event can be sent again on request');
        assert.deepEqual((await call(t.url, 'GET', `/v1/webhook-delivery/${test.body.id}`, { key: apiKey })).body, again.body);

        const { key: otherKey } = await t.newKey();
        assert.equal((await call(t.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key: otherKey })).status, 404);
        assert.equal((await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.id}/test`, { key: otherKey })).status, 404);
        assert.equal((await call(t.url, 'POST', '/v1/webhook-delivery/not-a-uuid/retry', { key: apiKey })).status, 404);
      } finally {
        await receiver.close();
      }
    });

    it('a test event or a retry is attempted by the request itself, even with a worker that looks for due deliveries all the time', async () => {
      // The request makes its delivery due and claims it in one transaction: a worker polling in between
      // would otherwise take it first, and the answer would come before any attempt ("pending").
      const busy = await startTestService(backend, { payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 1 } });
      const receiver = await startReceiver();
      try {
        const { key: apiKey } = await busy.newKey();
        const endpoint = (await call(busy.url, 'POST', '/v1/webhook-endpoint', { key: apiKey, body: { url: `${receiver.url}/hooks` } })).body;
        for (let round = 0; round < 15; round++) {
          const test = await call(busy.url, 'POST', `/v1/webhook-endpoint/${endpoint.id}/test`, { key: apiKey });
          assert.equal(test.body.status, 'delivered', `test event, round ${round}`);
          assert.equal(test.body.attemptCount, 1);
          const retried = await call(busy.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key: apiKey });
          assert.equal(retried.body.status, 'delivered', `retry, round ${round}`);
          assert.equal(retried.body.attemptCount, 2);
        }
        assert.equal(receiver.received.length, 30, 'each sent once');
      } finally {
        await receiver.close();
        await busy.close();
      }
    });

    it('gives up once the next retry would fall past 3 days after the event', async () => {
      const { key: apiKey } = await t.newKey();
      const receiver = await startReceiver(() => 500);
      const { endpoint } = await endpointFor(apiKey, { events: ['checkout.session.paid'] }, receiver);
      try {
        const slug = await createUsdLink(t.url, apiKey, '1');
        const session = await startSession(t.url, slug);
        await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
        await receiver.waitFor(2);
        clock.advance(3 * DAY);
        await eventually(
          async () => (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey })).body.items[0].status === 'failed',
          10_000,
          'the delivery to fail',
        );
        const count = receiver.received.length;
        const [delivery] = (await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, { key: apiKey })).body.items;
        assert.equal(delivery.nextAttemptAt, null);
        assert.equal(delivery.attemptCount, count);
        await deliveriesDone(apiKey, endpoint.id);
        assert.equal(receiver.received.length, count, 'no attempt after giving up');
        const failedOnly = await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries?status=failed`, { key: apiKey });
        assert.equal(failedOnly.body.meta.totalItems, 1);
        assert.equal((await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries?status=pending`, { key: apiKey })).body.meta.totalItems, 0);
      } finally {
        await receiver.close();
      }
    });
  });
}
