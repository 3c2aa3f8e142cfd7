/**
 * Market rates in the running service, against local servers speaking CoinGecko's and Coinbase's
 * documented formats, on both databases: quotes follow the served rate and each session records it
 * and what it was made of (public read, keyed read, webhook), and `GET /v1/rates` shows the book; a
 * changed rate reaches new sessions within a refresh while sessions already quoted keep theirs; a
 * source 9× off or answering absurd values (1e30, 1e-30, 1e1000) is a 503 `rate_unavailable` that says
 * why, never a bent quote nor a 500, and `/readyz` tells the truth; a wild move is held for every
 * instance on the database until it lasts or `paylink rates accept` (in-process and as the command)
 * is seen by the running instance; stale rates answer 503 and `/readyz` names the stale pairs.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../../src/server/log.js';
import { RateBook, resolveRateSettings, type RateSourceName } from '../../../../src/server/service/rates/index.js';
import { runRatesCommand } from '../../../../src/server/service/rates/accept-command.js';
import { startService } from '../../../../src/server/service/serve.js';
import { eventually, testClock } from '../../../support/money.js';
import { createPgliteDataDir } from '../../../support/pglite-template.js';
import { BIN } from '../../../support/processes.js';
import { coinbaseBody, coingeckoBody, startCoinbase, startCoingecko, type FakeProvider } from '../../../support/rate-providers.js';
import { backends, call, standardLinkBody, startTestService, type TestService } from '../../../support/service.js';
import { startReceiver, type Receiver } from '../../../support/webhook-receiver.js';

const SECOND = 1000;
const run = promisify(execFile);

for (const backend of backends()) {
  describe(`market rates in the service (${backend})`, () => {
    let t: TestService;
    let key: string;
    let gecko: FakeProvider;
    let base: FakeProvider;
    let receiver: Receiver;
    const lines: Array<Record<string, unknown>> = [];
    const clock = testClock();
    const rateSettings = () => ({
      sources: ['coingecko', 'coinbase'] as RateSourceName[],
      coingeckoUrl: gecko.url,
      coinbaseUrl: base.url,
      refreshS: 0.1,
      maxAgeS: 600,
      // Loopback stand-ins: a source that times out keeps its last figures, which a busy machine must not
      // bring about by accident (the stale test's hanging source waits this out, once).
      timeoutS: 5,
      currencies: ['NGN', 'USD'],
      pegs: { CNGN: 'NGN' },
    });
    /** Both providers say a tether is `usd` dollars and a dollar is `naira` naira. */
    const serve = (naira: string, usd: string | number = 1) => {
      gecko.answer = coingeckoBody({ tether: { usd, ngn: typeof usd === 'number' ? Number(naira) * usd : naira } });
      base.answer = coinbaseBody({ USDT: '1', NGN: naira, EUR: '0.92' });
    };
    const logged = (code: string) => lines.filter((line) => line.code === code);

    before(async () => {
      [gecko, base, receiver] = await Promise.all([startCoingecko(), startCoinbase(), startReceiver()]);
      serve('1600');
      t = await startTestService(backend, {
        now: clock.now,
        payoutWorker: false,
        logger: createLogger((line) => lines.push(JSON.parse(line))),
        webhooks: { allowPrivate: true, pollIntervalMs: 50 },
        rateSettings: rateSettings(),
      });
      ({ key } = await t.newKey());
      const endpoint = await call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    });
    after(async () => {
      await t.close();
      await Promise.all([gecko.close(), base.close(), receiver.close()]);
    });

    const link = async (amount: number, currency = 'NGN') => {
      const created = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ fiatAmount: amount, fiatCurrency: [currency] }) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.slug as string;
    };
    const start = (slug: string, assetId = 'USDT') => call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId } });
    let orders = 0;
    const nairaOrder = async (amount: number) => {
      const order = await call(t.url, 'POST', '/v1/order', { key, body: { fiatAmount: amount, fiatCurrency: 'NGN', reference: `rates-order-${++orders}` } });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      return order.body.id as string;
    };
    const startOrder = (id: string) => call(t.url, 'POST', `/v1/checkout/orders/${id}/sessions`, { body: { assetId: 'USDT' } });
    /** Waits until a session of `slug` starts at `cryptoAmount` (the next refresh has run), returns it. */
    const startsAt = async (slug: string, cryptoAmount: string, what: string) => {
      let latest: Awaited<ReturnType<typeof start>> | undefined;
      await eventually(async () => (latest = await start(slug)).status === 201 && latest.body.cryptoAmount === cryptoAmount, 20_000, what);
      return latest!.body;
    };

    it('quotes at the served rate and records it and its basis on the session, its keyed read and its webhook; GET /v1/rates shows the book', async () => {
      const slug = await link(16_000);
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
      // What the quote was made of: each code's quorum value and every source's value then.
      assert.deepEqual(
        keyed.rateBasis.map((basis: { pair: string; perUsd: string; quorum: number; sources: { source: string; perUsd: string; used: boolean }[] }) => [
          basis.pair,
          basis.perUsd,
          basis.quorum,
          basis.sources.map(({ source, perUsd, used }) => `${source}=${perUsd}${used ? '' : ' (dropped)'}`),
        ]),
        [
          ['USDT/USD', '1', 2, ['coingecko=1', 'coinbase=1']],
          ['USD/NGN', '1600', 2, ['coingecko=1600', 'coinbase=1600']],
        ],
      );

      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      assert.equal(paid.status, 200);
      const [delivery] = await receiver.waitFor(1);
      const object = JSON.parse(delivery!.body).data.object;
      assert.deepEqual([object.id, object.rate, object.rateSource, object.rateAt], [session.id, '0.000625', 'coingecko+coinbase', session.rateAt]);
      assert.deepEqual(object.rateBasis, keyed.rateBasis, 'the webhook carries the basis too');

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
      assert.deepEqual([cngn.cryptoAmount, cngn.rate, cngn.rateSource, cngn.rateBasis], ['16000.000000', '1', 'peg:CNGN=NGN', undefined]);
      assert.deepEqual((await call(t.url, 'GET', `/v1/checkout-session/${cngn.id}`, { key })).body.rateBasis, [], 'par: no market behind it');

      // The book as it stands, behind the key.
      assert.equal((await call(t.url, 'GET', '/v1/rates')).status, 401);
      const view = (await call(t.url, 'GET', '/v1/rates', { key })).body;
      assert.deepEqual([view.quorum, view.maxSpread], [2, '0.02']);
      assert.deepEqual(
        view.markets.map(
          (market: {
            pair: string;
            perUsd: string | null;
            reason: string | null;
            spread: string | null;
            sources: { source: string; status: string; at: string }[];
          }) => [market.pair, market.perUsd, market.reason, market.spread, market.sources.map((source) => `${source.source}:${source.status}`)],
        ),
        [
          ['USDT/USD', '1', null, '0', ['coingecko:agrees', 'coinbase:agrees']],
          ['CNGN/USD', '1600', null, null, ['coinbase:invalid']],
          ['USD/NGN', '1600', null, '0', ['coingecko:agrees', 'coinbase:agrees']],
        ],
      );
    });

    it('a changed rate reaches new sessions within a refresh; sessions already quoted keep theirs', async () => {
      const slug = await link(16_000);
      const first = (await start(slug)).body;
      assert.equal(first.cryptoAmount, '10.000000');
      serve('1700');
      const latest = await startsAt(slug, '9.411765', 'a session at the new rate');
      assert.deepEqual([latest.rate, latest.rateSource], ['0.000588235294117647058823', 'coingecko+coinbase']);
      const again = (await call(t.url, 'GET', `/v1/checkout/sessions/${first.id}`)).body;
      assert.deepEqual([again.cryptoAmount, again.remainingAmount, again.rate], ['10.000000', '10.000000', '0.000625'], 'the first quote holds');
    });

    it('a source 9× off: 503 rate_unavailable saying no_quorum, never the bent mean; /readyz says so; the log names that source', async () => {
      const slug = await link(1000, 'USD');
      await startsAt(slug, '1000.000000', 'quoted before');
      lines.length = 0;
      // Coinbase says a tether is worth $9: the mean of two would price 1,000 USD at 555.555556 USDT.
      base.answer = coinbaseBody({ USDT: '0.111111', NGN: '1700' });
      // A refresh under way when the answer changed may see the move first (held, or two sources apart
      // with no outlier named yet); the next one names the outlier: wait for both.
      await eventually(async () => (await start(slug)).status === 503 && logged('rate_source_outlier').length > 0, 20_000, 'no quote, and the outlier named');
      const refused = await start(slug);
      assert.deepEqual([refused.body.code, refused.body.errors[0].path], ['rate_unavailable', 'USDT/USD']);
      assert.match(refused.body.message, /No current exchange rate for USDT in USD \(no_quorum\): 2 rate sources must agree on USDT\/USD within 2%/);
      const ready = await call(t.url, 'GET', '/readyz');
      assert.deepEqual(
        [ready.status, ready.body.stale, ready.body.reasons],
        [503, ['USDT/NGN', 'USDT/USD'], { 'USDT/NGN': 'no_quorum', 'USDT/USD': 'no_quorum' }],
      );
      assert.deepEqual(
        logged('rate_source_outlier').map((line) => `${line.source}:${line.currency}`),
        ['coinbase:USDT'],
        'the source that moved away from the last quoted rate, and only it',
      );
      assert.equal(logged('rate_no_quorum')[0]?.pair, 'USDT/USD');
      const view = (await call(t.url, 'GET', '/v1/rates', { key })).body;
      const usdt = view.markets.find((market: { pair: string }) => market.pair === 'USDT/USD');
      assert.deepEqual(
        [usdt.reason, usdt.perUsd, usdt.sources.map((source: { source: string; status: string }) => `${source.source}:${source.status}`)],
        ['no_quorum', null, ['coingecko:agrees', 'coinbase:outlier']],
      );
      serve('1700');
      await startsAt(slug, '1000.000000', 'quoted again once they agree');
    });

    it('absurd answers (1e-30, 1e30, 1e1000) never give a 500 nor a bent quote, and /readyz tells the truth', async () => {
      const slug = await link(1000, 'USD');
      const nairaSlug = await link(17_000);
      for (const usd of ['1e-30', '1e30', '1e1000']) {
        gecko.answer = coingeckoBody({ tether: { usd, ngn: '1700' } });
        const unquotable = { 'USDT/NGN': 'no_quorum', 'USDT/USD': 'no_quorum', 'CNGN/USD': 'no_quorum' };
        // Each pair says so once a refresh has seen the answer whole (one under way may have seen part of it).
        await eventually(
          async () => isDeepStrictEqual((await call(t.url, 'GET', '/readyz')).body.reasons, unquotable),
          20_000,
          `usd: ${usd} makes the pairs unquotable`,
        );
        for (const answer of [await start(slug), await start(nairaSlug), await start(nairaSlug, 'CNGN')]) {
          assert.notEqual(answer.status, 500, `usd: ${usd}: ${JSON.stringify(answer.body)}`);
          if (answer.status === 201)
            assert.deepEqual([answer.body.assetId, answer.body.rate], ['CNGN', '1'], 'only cNGN at par with the naira it is priced in');
          else assert.deepEqual([answer.status, answer.body.code], [503, 'rate_unavailable']);
        }
        const ready = await call(t.url, 'GET', '/readyz');
        assert.deepEqual([ready.status, ready.body.reasons], [503, unquotable], `usd: ${usd}`);
      }
      assert.ok(!logged('internal_error').length, 'no internal error');
      // Both sources absurd: nothing usable at all.
      base.answer = coinbaseBody({ USDT: '-1', NGN: 'NaN' });
      await eventually(async () => (await call(t.url, 'GET', '/readyz')).body.reasons?.['USDT/USD'] === 'stale', 20_000, 'no usable rate at all');
      assert.deepEqual([(await start(slug)).status, logged('internal_error').length], [503, 0]);
      serve('1700');
      await startsAt(slug, '1000.000000', 'quoted again');
    });

    it('a wild move is held for every instance on the database until an operator accepts it (seen at the next refresh) or it lasts 15 minutes', async () => {
      const slug = await link(17_000);
      await startsAt(slug, '10.000000', 'quoted at 1700');
      lines.length = 0;
      // The naira loses a third in a refresh.
      serve('2550');
      // The refresh that sees the move refuses at once; the hold it records (and its time) is said from the next.
      await eventually(async () => / is held since /.test((await start(slug)).body.message ?? ''), 20_000, 'held, and since when');
      const held = await start(slug);
      assert.deepEqual([held.body.code, held.body.errors[0].path], ['rate_unavailable', 'USD/NGN']);
      assert.match(held.body.message, /\(held\): USD\/NGN moved 50% from its last quoted rate and is held since .*paylink rates accept USD\/NGN/);
      assert.deepEqual(
        logged('rate_move_held').map((line) => [line.pair, line.from, line.to]),
        [['USD/NGN', '1700', '2550']],
      );
      assert.equal((await call(t.url, 'GET', '/readyz')).body.reasons['USDT/NGN'], 'held');

      // Another instance on the same database sees the same hold (the last quoted rate is shared).
      const other = new RateBook(resolveRateSettings(rateSettings(), {}), { assets: ['USDT', 'CNGN'], now: clock.now, db: t.db, log: createLogger(() => {}) });
      await other.refresh();
      assert.equal(other.whyNot('NGN')?.reason, 'held');

      const [naira, tether] = [await listed('NGN'), await listed('USDT')];
      assert.deepEqual(await runRatesCommand(t.db, []), [
        `USD/NGN   last quoted 1700 per USD at ${naira.quotedAt}; HELD: moved to 2550 since ${naira.heldSince} (paylink rates accept USD/NGN)`,
        `USDT/USD  last quoted 1 per USD at ${tether.quotedAt}`,
      ]);
      assert.deepEqual(await runRatesCommand(t.db, ['accept', 'USDT/NGN']), [
        'Accepted USD/NGN at 2550 per USD: running instances quote it from their next refresh.',
        'USDT/USD is not held: nothing to accept.',
      ]);
      const accepted = await startsAt(slug, '6.666667', 'the running instance quotes the accepted rate');
      assert.equal(accepted.rate, '0.000392156862745098039215');
      assert.deepEqual(
        logged('rate_move_accepted').map((line) => [line.pair, line.by]),
        [['USD/NGN', 'operator']],
      );
      await other.refresh();
      assert.equal(other.whyNot('NGN'), undefined, 'and so does the other instance');

      // A move that lasts is believed without anyone: 900 s later.
      serve('3400');
      await eventually(async () => (await start(slug)).status === 503, 20_000, 'held again');
      clock.advance(901 * SECOND);
      await startsAt(slug, '5.000000', 'believed once it lasted');
      assert.deepEqual(
        logged('rate_move_accepted').map((line) => line.by),
        ['operator', 'persistence'],
      );

      /** A code's row as `paylink rates` prints its times. */
      async function listed(code: string) {
        const { rows } = await t.db.query<{ quoted_at: Date; held_since: Date | null }>('SELECT quoted_at, held_since FROM quoted_rates WHERE code = $1', [
          code,
        ]);
        return { quotedAt: rows[0]!.quoted_at.toISOString(), heldSince: rows[0]!.held_since?.toISOString() };
      }
    });

    it(
      '`paylink rates accept` run as the command on the same PostgreSQL database is seen by the running instance',
      { skip: backend !== 'postgres' },
      async () => {
        const slug = await link(34_000);
        await startsAt(slug, '10.000000', 'quoted at 3400');
        serve('5100');
        await eventually(async () => (await start(slug)).status === 503, 20_000, 'held');
        const shown = await run(process.execPath, [BIN, 'rates', '--database-url', t.databaseUrl!], { encoding: 'utf8' });
        assert.match(shown.stdout, /USD\/NGN {3}last quoted 3400 per USD at .*; HELD: moved to 5100 since/);
        const accepted = await run(process.execPath, [BIN, 'rates', 'accept', 'USD/NGN', '--database-url', t.databaseUrl!], { encoding: 'utf8' });
        assert.equal(accepted.stdout, 'Accepted USD/NGN at 5100 per USD: running instances quote it from their next refresh.\n');
        await startsAt(slug, '6.666667', 'the running instance quotes what the command accepted');
        const wrong = await run(process.execPath, [BIN, 'rates', 'accept', 'USDT/XYZ', '--database-url', t.databaseUrl!]).catch(
          (error: { code: number; stderr: string }) => error,
        );
        assert.equal((wrong as { code: number }).code, 2);
        assert.match((wrong as { stderr: string }).stderr, /not a pair: USDT\/XYZ/);
      },
    );

    it('stale rates: 503 rate_unavailable, /readyz names the stale pairs, quoted sessions keep their quote; fresh again once a source answers', async () => {
      const naira = backend === 'postgres' ? '5100' : '3400';
      const slug = await link(Number(naira) * 2);
      const order = await nairaOrder(Number(naira) * 2);
      const quoted = await startsAt(slug, '2.000000', 'quoted');
      assert.deepEqual(await call(t.url, 'GET', '/readyz').then((r) => [r.status, r.body.status]), [200, 'ready']);

      gecko.answer = { status: 500, body: '{"error":"down"}' };
      base.answer = 'hang';
      clock.advance(601 * SECOND);
      const refused = await call(t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT' } });
      assert.equal(refused.status, 503);
      assert.equal(refused.body.code, 'rate_unavailable');
      assert.equal(refused.body.status, 'error');
      assert.match(refused.body.message, /No current exchange rate for USDT in NGN \(stale\)/);
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
      await eventually(async () => lines.some((line) => line.code === 'rates_stale'), 20_000, 'the log says the rates went stale');

      const kept = (await call(t.url, 'GET', `/v1/checkout/sessions/${quoted.id}`)).body;
      assert.deepEqual([kept.status, kept.cryptoAmount, kept.rate], ['awaiting_payment', quoted.cryptoAmount, quoted.rate]);
      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${quoted.id}/simulate-payment`, { body: {} });
      assert.equal(paid.body.status, 'paid', 'a quoted session is still paid at its quote');

      serve(naira === '5100' ? '5355' : '3570');
      await eventually(async () => (await call(t.url, 'GET', '/readyz')).status === 200, 20_000, 'ready again');
      assert.equal((await start(slug)).body.cryptoAmount, '1.904762');
      assert.ok(lines.some((line) => line.code === 'rates_fresh'));
    });
  });

  describe(`what a payment may carry (${backend})`, () => {
    it('a rate that makes a price larger than the ledger carries is a 422, never a 500', async () => {
      // A made-up table where a dollar buys 10^12 tethers: a 10^12 USD link would be 10^24 USDT.
      const t = await startTestService(backend, { payoutWorker: false, rates: { USDT: '1000000000000' } });
      try {
        const { key } = await t.newKey();
        const created = await call(t.url, 'POST', '/v1/payment-link', {
          key,
          body: standardLinkBody({ fiatAmount: 1_000_000_000_000, fiatCurrency: ['USD'] }),
        });
        const refused = await call(t.url, 'POST', `/v1/checkout/${created.body.slug}/sessions`, { body: { assetId: 'USDT' } });
        assert.deepEqual([refused.status, refused.body.code], [422, 'amount_too_large']);
      } finally {
        await t.close();
      }
    });
  });
}

describe('paylink rates accept on a PGlite data directory', () => {
  it('is refused while serve holds the directory, and once it is stopped, the next start quotes what was accepted', async () => {
    const [gecko, base] = await Promise.all([startCoingecko(), startCoinbase()]);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-rates-'));
    const dataDir = path.join(dir, 'data');
    await createPgliteDataDir(dataDir);
    const clock = testClock();
    const serve = (naira: string) => {
      gecko.answer = coingeckoBody({ tether: { usd: 1, ngn: naira } });
      base.answer = coinbaseBody({ USDT: '1', NGN: naira });
    };
    const options = () => ({
      dataDir,
      now: clock.now,
      payoutWorker: false,
      webhookWorker: false,
      logger: createLogger(() => {}),
      rateSettings: {
        sources: ['coingecko', 'coinbase'] as ('coingecko' | 'coinbase')[],
        coingeckoUrl: gecko.url,
        coinbaseUrl: base.url,
        refreshS: 60,
        currencies: ['NGN'],
      },
    });
    try {
      serve('1600');
      let service = await startService(options());
      serve('2400');
      await service.rates.refresh();
      assert.equal(service.rates.whyNot('NGN')?.reason, 'held');
      const refused = await run(process.execPath, [BIN, 'rates', 'accept', 'USD/NGN', '--data-dir', dataDir]).catch((error: { stderr: string }) => error);
      assert.match((refused as { stderr: string }).stderr, /is in use by/);
      await service.close();
      const accepted = await run(process.execPath, [BIN, 'rates', 'accept', 'USD/NGN', '--data-dir', dataDir], { encoding: 'utf8' });
      assert.match(accepted.stdout, /^Accepted USD\/NGN at 2400 per USD/);
      service = await startService(options());
      assert.equal(service.rates.pair('USDT', 'NGN')?.rate, '0.000416666666666666666666');
      await service.close();
    } finally {
      await Promise.all([gecko.close(), base.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
