/**
 * Market rates in the running service, against local servers speaking CoinGecko's and Coinbase's
 * documented formats: quotes follow the served rate and each session records it, an order's as a
 * link's (public read, keyed read, webhook); a changed rate reaches new sessions within a refresh while
 * sessions already quoted keep theirs; stale rates answer 503 `rate_unavailable` (to an order's
 * sessions too) and `/readyz` names the stale pairs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/server/log.js';
import { eventually, testClock } from '../support/money.js';
import { coinbaseBody, coingeckoBody, startCoinbase, startCoingecko, type FakeProvider } from '../support/rate-providers.js';
import { backends, call, standardLinkBody, startTestService, type TestService } from '../support/service.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const SECOND = 1000;

for (const backend of backends()) {
  describe(`market rates in the service (${backend})`, () => {
    let t: TestService;
    let key: string;
    let gecko: FakeProvider;
    let base: FakeProvider;
    let receiver: Receiver;
    const lines: Array<Record<string, unknown>> = [];
    const clock = testClock();
    const serve = (naira: string) => {
      gecko.answer = coingeckoBody({ tether: { usd: 1, ngn: naira } });
      base.answer = coinbaseBody({ USDT: '1', NGN: naira, EUR: '0.92' });
    };

    before(async () => {
      [gecko, base, receiver] = await Promise.all([startCoingecko(), startCoinbase(), startReceiver()]);
      serve('1600');
      t = await startTestService(backend, {
        now: clock.now,
        payoutWorker: false,
        logger: createLogger((line) => lines.push(JSON.parse(line))),
        webhooks: { allowPrivate: true, pollIntervalMs: 50 },
        rateSettings: {
          sources: ['coingecko', 'coinbase'],
          coingeckoUrl: gecko.url,
          coinbaseUrl: base.url,
          refreshS: 0.1,
          maxAgeS: 600,
          timeoutS: 1,
          currencies: ['NGN', 'USD'],
          pegs: { CNGN: 'NGN' },
        },
      });
      ({ key } = await t.newKey());
      const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    });
    after(async () => {
      await t.close();
      await Promise.all([gecko.close(), base.close(), receiver.close()]);
    });

    const nairaLink = async (amount: number) => {
      const link = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ fiatAmount: amount, fiatCurrency: ['NGN'] }) });
      assert.equal(link.status, 201, JSON.stringify(link.body));
      return link.body.slug as string;
    };
    const start = (slug: string, assetId = 'USDT') => call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId } });
    let orders = 0;
    const nairaOrder = async (amount: number) => {
      const order = await call(t.url, 'POST', '/v1/order', { key, body: { fiatAmount: amount, fiatCurrency: 'NGN', reference: `rates-order-${++orders}` } });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      return order.body.id as string;
    };
    const startOrder = (id: string) => call(t.url, 'POST', `/v1/checkout/orders/${id}/sessions`, { body: { assetId: 'USDT' } });

    it('quotes at the served rate and records it on the session, its keyed read and its webhook', async () => {
      const slug = await nairaLink(16_000);
      const started = await start(slug);
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const session = started.body;
      assert.deepEqual(
        [session.cryptoAmount, session.rate, session.rateSource, session.rateAt],
        ['10.000000', '0.000625', 'coingecko+coinbase', clock.now().toISOString()],
      );
      assert.ok(gecko.requests.length >= 1 && base.requests.length >= 1, 'both providers asked');
      const read = (await call(t.url, 'GET', `/v1/checkout/sessions/${session.id}`)).body;
      assert.deepEqual([read.rate, read.rateSource, read.rateAt], [session.rate, session.rateSource, session.rateAt]);
      const keyed = (await call(t.url, 'GET', `/v1/checkout-session/${session.id}`, { key })).body;
      assert.deepEqual([keyed.rate, keyed.rateSource, keyed.rateAt], [session.rate, session.rateSource, session.rateAt]);

      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      assert.equal(paid.status, 200);
      const [delivery] = await receiver.waitFor(1);
      const object = JSON.parse(delivery!.body).data.object;
      assert.deepEqual([object.id, object.rate, object.rateSource, object.rateAt], [session.id, '0.000625', 'coingecko+coinbase', session.rateAt]);

      // An order's session is quoted and recorded the same way.
      const ordered = await startOrder(await nairaOrder(16_000));
      assert.equal(ordered.status, 201, JSON.stringify(ordered.body));
      assert.deepEqual(
        [ordered.body.cryptoAmount, ordered.body.rate, ordered.body.rateSource, ordered.body.rateAt],
        ['10.000000', '0.000625', 'coingecko+coinbase', clock.now().toISOString()],
      );
      const orderRecord = (await call(t.url, 'GET', `/v1/checkout-session/${ordered.body.id}`, { key })).body;
      assert.deepEqual([orderRecord.rate, orderRecord.rateSource, orderRecord.rateAt], [ordered.body.rate, ordered.body.rateSource, ordered.body.rateAt]);

      // cNGN: neither provider rates it; its peg prices it at par with the naira.
      const cngn = (await start(slug, 'CNGN')).body;
      assert.deepEqual([cngn.cryptoAmount, cngn.rate, cngn.rateSource], ['16000.000000', '1', 'peg:CNGN=NGN']);
    });

    it('a changed rate reaches new sessions within a refresh; sessions already quoted keep theirs', async () => {
      const slug = await nairaLink(16_000);
      const first = (await start(slug)).body;
      assert.equal(first.cryptoAmount, '10.000000');
      serve('2000');
      let latest = first;
      await eventually(async () => (latest = (await start(slug)).body).cryptoAmount === '8.000000', 5_000, 'a session at the new rate');
      assert.deepEqual([latest.rate, latest.rateSource], ['0.0005', 'coingecko+coinbase']);
      const again = (await call(t.url, 'GET', `/v1/checkout/sessions/${first.id}`)).body;
      assert.deepEqual([again.cryptoAmount, again.remainingAmount, again.rate], ['10.000000', '10.000000', '0.000625'], 'the first quote holds');
    });

    it('stale rates: 503 rate_unavailable, /readyz names the stale pairs, quoted sessions keep their quote; fresh again once a source answers', async () => {
      const slug = await nairaLink(20_000);
      const order = await nairaOrder(20_000);
      const quoted = (await start(slug)).body;
      assert.deepEqual(await call(t.url, 'GET', '/readyz').then((r) => [r.status, r.body.status]), [200, 'ready']);

      gecko.answer = { status: 500, body: '{"error":"down"}' };
      base.answer = 'hang';
      clock.advance(601 * SECOND);
      const refused = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT' } });
      assert.equal(refused.status, 503);
      assert.equal(refused.body.code, 'rate_unavailable');
      assert.equal(refused.body.status, 'error');
      assert.match(refused.body.message, /No current exchange rate for USDT in NGN/);
      assert.equal(refused.headers.get('retry-after'), '1');
      const orderRefused = await startOrder(order);
      assert.deepEqual([orderRefused.status, orderRefused.body.code], [503, 'rate_unavailable'], 'an order’s session needs a fresh rate too');

      const ready = await call(t.url, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.code, 'rates_stale');
      assert.deepEqual(ready.body.stale, ['USDT/NGN', 'USDT/USD', 'CNGN/USD']);
      assert.equal(ready.headers.get('cache-control'), 'no-store');
      const health = await call(t.url, 'GET', '/healthz');
      assert.deepEqual([health.status, health.body], [200, { status: 'ok' }], '/healthz says the process serves, whatever the rates');
      // A bound, not a speed: the refresh that finds the sources down waits out the hanging one's timeout first.
      await eventually(async () => lines.some((line) => line.code === 'rates_stale'), 15_000, 'the log says the rates went stale');

      const kept = (await call(t.url, 'GET', `/v1/checkout/sessions/${quoted.id}`)).body;
      assert.deepEqual([kept.status, kept.cryptoAmount, kept.rate], ['awaiting_payment', quoted.cryptoAmount, quoted.rate]);
      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${quoted.id}/simulate-payment`, { body: {} });
      assert.equal(paid.body.status, 'paid', 'a quoted session is still paid at its quote');

      serve('2000');
      await eventually(async () => (await call(t.url, 'GET', '/readyz')).status === 200, 5_000, 'ready again');
      assert.equal((await start(slug)).body.cryptoAmount, '10.000000');
      assert.ok(lines.some((line) => line.code === 'rates_fresh'));
    });
  });
}
