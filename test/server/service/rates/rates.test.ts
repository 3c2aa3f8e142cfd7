/**
 * Market rates without a database: the rate book against local servers speaking CoinGecko's,
 * Coinbase's, Kraken's and ExchangeRate-API's documented formats. Each source read as documented,
 * sources combined by the median of those that agree, crossed through USD, pegs, the skipping (and
 * logging, never with a body) of failures and nonsense, freshness, the settings, exact parsing, and
 * the decimals of a quote (a property test). The quorum, holds and pegs under attack are in
 * rates-quorum.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { divideRatio, fromUnits, multiplyRatio, ratioOf, toUnits, type Ratio } from '../../../../src/core/money.js';
import {
  compareAcross,
  convertFiat,
  parseJsonExact,
  quoteCrypto,
  RateBook,
  RateConfigError,
  readRateValue,
  resolveRateSettings,
  SOURCES_REQUIRED,
} from '../../../../src/server/service/rates/index.js';
import { ROOT } from '../../../support/processes.js';
import { coinbaseBody, coingeckoBody, exchangeRateBody, krakenBody, type FakeProvider } from '../../../support/rate-providers.js';
import { rateBookSuite } from '../../../support/rate-book.js';

const MINUTE = 60_000;
/** A body marker: it must never reach a log line. */
const MARKER = 'BODY-MARKER-7f3a';

/** A quote's rate, sources and time (its basis is checked where it is the subject). */
const quoteOf = (pair: { rate: string; source: string; at: Date } | undefined) => pair && { rate: pair.rate, source: pair.source, at: pair.at };

describe('the rate book', () => {
  const suite = rateBookSuite({ assets: ['USDT', 'CNGN'], currencies: ['NGN', 'USD', 'EUR', 'GHS'] });
  const { book, logged } = suite;
  let gecko: FakeProvider, base: FakeProvider, kraken: FakeProvider, fx: FakeProvider;
  before(() => ({ gecko, base, kraken, fx } = suite));

  it("reads CoinGecko's simple price as documented, numbers digit for digit, currencies crossed through USD", async () => {
    gecko.answer = coingeckoBody({ tether: { usd: '1.0002', ngn: '1612.4', eur: '0.92' } });
    const rates = book({ sources: ['coingecko'] });
    await rates.refresh();
    const request = new URL(gecko.requests[0]!, 'http://x');
    assert.equal(request.pathname, '/api/v3/simple/price');
    assert.equal(request.searchParams.get('ids'), 'tether', 'USDT is CoinGecko’s tether; cNGN has no id');
    assert.deepEqual(request.searchParams.get('vs_currencies')!.split(','), ['usd', 'ngn', 'eur'], 'only currencies CoinGecko rates (no GHS)');
    // 1 USDT = 1612.4 NGN, whatever tether's dollar price: the cross through USD cancels it.
    assert.deepEqual(quoteOf(rates.pair('USDT', 'NGN')), { rate: '0.000620193500372116100223', source: 'coingecko', at: suite.time.now() });
    assert.equal(rates.pair('USDT', 'EUR')!.rate, '1.086956521739130434782608', '1 / 0.92, cut at 24 decimals');
    assert.equal(rates.pair('USDT', 'USD')!.rate, '0.999800039992001599680063', '1 / 1.0002');
    assert.equal(rates.pair('USDT', 'GHS'), undefined, 'CoinGecko does not rate GHS');
    assert.equal(rates.pair('CNGN', 'NGN'), undefined, 'no source rates cNGN and no peg');
  });

  it("reads Coinbase's exchange rates as documented (units per USD, as strings)", async () => {
    base.answer = coinbaseBody({ NGN: '1612.40', USDT: '0.9998', EUR: '0.92', GHS: '15.2', BTC: '0.0000105' });
    const rates = book({ sources: ['coinbase'] });
    await rates.refresh();
    assert.equal(base.requests[0], '/v2/exchange-rates?currency=USD');
    assert.equal(rates.pair('USDT', 'NGN')!.rate, '0.000620069461672041677003', '0.9998 / 1612.40');
    assert.equal(rates.pair('USDT', 'GHS')!.rate, '0.065776315789473684210526');
    assert.equal(rates.pair('USDT', 'NGN')!.source, 'coinbase');
  });

  it("reads Kraken's public ticker as documented: USDT in US dollars, the last trade's price", async () => {
    kraken.answer = krakenBody({ USDTZUSD: '1.00020000' });
    const rates = book({ sources: ['kraken'], pegs: { CNGN: 'NGN' } });
    await rates.refresh();
    const request = new URL(kraken.requests[0]!, 'http://x');
    assert.deepEqual([request.pathname, request.searchParams.get('pair')], ['/0/public/Ticker', 'USDTZUSD']);
    assert.equal(rates.pair('USDT', 'USD')!.rate, '0.999800039992001599680063', '1 / 1.0002');
    assert.equal(rates.pair('USDT', 'NGN'), undefined, 'Kraken has no naira');
    // Kraken's own error list fails the reading, whatever else it says.
    kraken.answer = { body: JSON.stringify({ error: ['EGeneral:Temporary lockout'], result: {} }) };
    await rates.refresh();
    assert.equal(logged('rate_source_failed')[0]?.reason, 'unexpected_shape');
  });

  it("reads ExchangeRate-API's open access rates as documented, and asks again only once it announces new ones", async () => {
    const nextUpdate = Math.floor(suite.time.now().getTime() / 1000) + 3600;
    fx.answer = exchangeRateBody({ NGN: '1612.4', EUR: '0.92', GHS: '15.2' }, nextUpdate);
    base.answer = coinbaseBody({ USDT: '1' });
    const rates = book({ sources: ['exchangerate', 'coinbase'], quorum: 1 });
    await rates.refresh();
    assert.deepEqual(fx.requests, ['/v6/latest/USD']);
    assert.equal(rates.pair('USDT', 'NGN')!.rate, '0.000620193500372116100223');
    assert.deepEqual(rates.perUsd('NGN')!.sources, ['exchangerate']);
    assert.equal(rates.pair('USDT', 'GHS')!.rate, '0.065789473684210526315789');
    // Within the hour it announced, its reading holds (and counts as fresh): no second request.
    fx.answer = exchangeRateBody({ NGN: '1700' }, nextUpdate + 86_400);
    suite.time.advance(30 * MINUTE);
    await rates.refresh();
    assert.equal(fx.requests.length, 1, 'its terms ask not to be asked again before its next update');
    assert.equal(rates.pair('USDT', 'NGN')!.at.getTime(), suite.time.now().getTime(), 'the kept reading is what it says now');
    suite.time.advance(31 * MINUTE);
    await rates.refresh();
    assert.equal(fx.requests.length, 2);
    assert.equal(rates.pair('USDT', 'NGN')!.rate, '0.000588235294117647058823');
  });

  it('combines the sources that agree by their median, crossing what each rates through USD', async () => {
    gecko.answer = coingeckoBody({ tether: { usd: '1', ngn: '1600', eur: '0.9' } });
    base.answer = coinbaseBody({ NGN: '1610', USDT: '1', EUR: '0.91', GHS: '15' });
    const three = book({ sources: ['coingecko', 'coinbase', 'static'], overrides: { NGN: '1605', EUR: '0.905' } });
    await three.refresh();
    assert.deepEqual(
      quoteOf(three.pair('USDT', 'NGN')),
      { rate: '0.000623052959501557632398', source: 'coingecko+coinbase+static', at: suite.time.now() },
      'median 1605',
    );
    assert.equal(three.settings.quorum, 2, 'on the sandbox, two sources must agree once two or more are named');
    const two = book({ sources: ['coingecko', 'coinbase'], quorum: 1 });
    await two.refresh();
    assert.equal(two.perUsd('NGN')!.value.num * 1n, 1605n * two.perUsd('NGN')!.value.den, 'two sources: the mean of the middle two');
    // GHS only from Coinbase (a quorum of one, said explicitly), USDT from both: the pair stands, named by both.
    assert.deepEqual(quoteOf(two.pair('USDT', 'GHS')), { rate: '0.066666666666666666666666', source: 'coingecko+coinbase', at: suite.time.now() });
    // A Standard price in another currency, exactly: 5000 NGN → EUR at (0.9+0.91)/2 per USD over 1605.
    assert.equal(convertFiat(two, '5000', 'NGN', 'EUR', suite.time.now()), '2.82');
    assert.equal(compareAcross(two, '1605', 'NGN', '1', 'USD', suite.time.now()), 0);
    // Each quote says what it was made of: every fresh source's value, used or not, and the quorum.
    assert.deepEqual(three.quotePair('USDT', 'NGN')!.basis, [
      {
        pair: 'USDT/USD',
        perUsd: '1',
        quorum: 2,
        sources: [
          { source: 'coingecko', perUsd: '1', at: suite.time.now().toISOString(), used: true },
          { source: 'coinbase', perUsd: '1', at: suite.time.now().toISOString(), used: true },
          { source: 'static', perUsd: '1', at: null, used: true },
        ],
      },
      {
        pair: 'USD/NGN',
        perUsd: '1605',
        quorum: 2,
        sources: [
          { source: 'coingecko', perUsd: '1600', at: suite.time.now().toISOString(), used: true },
          { source: 'coinbase', perUsd: '1610', at: suite.time.now().toISOString(), used: true },
          { source: 'static', perUsd: '1605', at: null, used: true },
        ],
      },
    ]);
  });

  it('skips a source that fails, times out or answers nonsense, once logged with a code and its name, never a body; the others still quote', async () => {
    const failures: Array<[FakeProvider['answer'], string, string]> = [
      [{ status: 500, body: `{"message":"${MARKER}"}` }, 'rate_source_failed', 'http_status'],
      [{ body: `<html>${MARKER}</html>` }, 'rate_source_failed', 'not_json'],
      [{ body: `{"rates":{"NGN":"1600"},"x":"${MARKER}"}` }, 'rate_source_failed', 'unexpected_shape'],
      [coinbaseBody({ USDT: '1', NGN: 'lots', X: MARKER }), 'rate_value_invalid', 'not_a_number'],
      [coinbaseBody({ USDT: '1', NGN: '0', X: MARKER }), 'rate_value_invalid', 'zero'],
      [coinbaseBody({ USDT: '1', NGN: '-1600', X: MARKER }), 'rate_value_invalid', 'negative'],
      [coinbaseBody({ USDT: '1', NGN: null, X: MARKER }), 'rate_value_invalid', 'missing'],
      [coinbaseBody({ USDT: '1', X: MARKER }), 'rate_value_invalid', 'missing'],
      ['hang', 'rate_source_failed', 'timeout'],
    ];
    for (const [answer, code, reason] of failures) {
      suite.lines.length = 0;
      base.answer = answer;
      const rates = book({ sources: ['coinbase', 'static'], quorum: 1, timeoutS: 0.3 });
      const started = Date.now();
      await rates.refresh();
      assert.ok(Date.now() - started < 5_000, `${reason}: the refresh is bounded by the timeout`);
      const line = logged(code).find((entry) => entry.reason === reason);
      assert.ok(line, `${reason} logged as ${code}: ${JSON.stringify(suite.lines)}`);
      assert.equal(line.source, 'coinbase');
      assert.ok(!JSON.stringify(suite.lines).includes(MARKER), `${reason}: no body in the log`);
      assert.deepEqual(rates.perUsd('NGN')!.sources, ['static'], `${reason}: the table alone prices NGN`);
      assert.equal(rates.pair('USDT', 'NGN')!.rate, '0.000645161290322580645161', `${reason}: the table still quotes`);
    }
    // The timeout holds however the garbage collector runs (in a process that can force it): a source
    // that never answers must not hold the refresh, and every later one, for good.
    const script = `
      import { createServer } from 'node:http';
      import { RateBook, resolveRateSettings } from './src/server/service/rates/index.ts';
      const server = createServer(() => {}); // takes the request, never answers
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const rates = new RateBook(resolveRateSettings({ sources: ['coinbase', 'static'], coinbaseUrl: 'http://127.0.0.1:' + server.address().port, currencies: ['NGN'], timeoutS: 0.3 }, {}), { assets: ['USDT'], log: { warn() {}, info() {}, error() {} } });
      const refresh = rates.refresh().then(() => 'ended');
      // Collections while the refresh waits on its 0.3 s timeout: time must pass for them to run in that window.
      for (let i = 0; i < 10; i++) { globalThis.gc(); await new Promise((resolve) => setTimeout(resolve, 20)); }
      // A bound, not a wait: a refresh that never ends says 'hung' after 3 s.
      console.log(await Promise.race([refresh, new Promise((resolve) => setTimeout(resolve, 3000, 'hung'))]));
      server.closeAllConnections();
      server.close();
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(child.stdout.trim(), 'ended', child.stderr);

    // A failure that goes on is said once, and its end too (a long timeout: a busy machine must not turn the 503 into a timeout).
    const rates = book({ sources: ['coinbase', 'static'], quorum: 1, timeoutS: 30 });
    suite.lines.length = 0;
    base.answer = { status: 503, body: '{}' };
    await rates.refresh();
    await rates.refresh();
    assert.equal(logged('rate_source_failed').length, 1);
    base.answer = coinbaseBody({ NGN: '1550', USDT: '1', EUR: '0.92', GHS: '15.5' });
    await rates.refresh();
    assert.equal(logged('rate_source_recovered').length, 1);
  });

  it('does not quote a rate older than the max age, says which pairs are stale, and when they are fresh again', async () => {
    const rates = book({ sources: ['coinbase'], maxAgeS: 600 });
    base.answer = coinbaseBody({ NGN: '1600', USDT: '1', EUR: '0.9', GHS: '15' });
    await rates.refresh();
    assert.deepEqual(
      rates.readiness(),
      {
        ready: false,
        pairs: ['USDT/NGN', 'USDT/USD', 'USDT/EUR', 'USDT/GHS', 'CNGN/NGN', 'CNGN/USD', 'CNGN/EUR', 'CNGN/GHS'],
        stale: ['CNGN/NGN', 'CNGN/USD', 'CNGN/EUR', 'CNGN/GHS'],
      },
      'nothing rates cNGN',
    );
    assert.deepEqual(rates.reasons(), { 'CNGN/NGN': 'stale', 'CNGN/USD': 'stale', 'CNGN/EUR': 'stale', 'CNGN/GHS': 'stale' });
    assert.equal(logged('rates_stale').length, 1);
    base.answer = { status: 502, body: '' };
    suite.time.advance(10 * MINUTE);
    assert.ok(rates.pair('USDT', 'NGN'), 'at exactly the max age it is still quoted');
    suite.time.advance(1000);
    assert.equal(rates.pair('USDT', 'NGN'), undefined);
    await rates.refresh();
    assert.deepEqual(
      rates.readiness().stale.filter((pair) => pair.startsWith('USDT')),
      ['USDT/NGN', 'USDT/USD', 'USDT/EUR', 'USDT/GHS'],
    );
    assert.match(String(logged('rates_stale').at(-1)?.pairs), /USDT\/NGN/);
  });

  it('prices an asset no source rates at par with its peg', async () => {
    base.answer = coinbaseBody({ NGN: '1600', USDT: '1', EUR: '0.9', GHS: '15' });
    const rates = book({ sources: ['coinbase'], pegs: { CNGN: 'NGN' } });
    await rates.refresh();
    assert.deepEqual(quoteOf(rates.pair('CNGN', 'NGN')), { rate: '1', source: 'peg:CNGN=NGN', at: suite.time.now() });
    assert.deepEqual(quoteOf(rates.pair('CNGN', 'USD')), { rate: '1600', source: 'coinbase+peg:CNGN=NGN', at: suite.time.now() });
    assert.equal(rates.pair('CNGN', 'EUR')!.rate, '1777.777777777777777777777777');
    assert.deepEqual(rates.readiness().stale, []);
    assert.equal(logged('rate_value_invalid').length, 0, 'a pegged asset the source never rates is not news');
  });

  it('quotes the table alone at once, for good, and never fetches', async () => {
    const rates = book({ sources: ['static'] });
    suite.time.advance(10 * 365 * 24 * 60 * MINUTE);
    assert.deepEqual(quoteOf(rates.pair('CNGN', 'NGN')), { rate: '1', source: 'static', at: suite.time.now() });
    assert.equal(quoteCrypto(rates, '2000.00', 'NGN', 'USDT', suite.time.now())!.cryptoAmount, '1.290323');
    assert.equal(quoteCrypto(rates, '1550.00', 'NGN', 'USDT', suite.time.now())!.cryptoAmount, '1.000000', 'a whole unit stays whole');
    assert.equal(rates.fetches, false);
    await rates.refresh();
    assert.equal(suite.requestCount(), 0);
  });
});

describe('rate settings', () => {
  it('defaults to the table, and on a real chain (serve --chain evm) refuses to imply it', () => {
    const settings = resolveRateSettings({}, {});
    assert.deepEqual([settings.sources, settings.explicit, settings.refreshMs, settings.maxAgeMs, settings.pegs], [['static'], false, 60_000, 600_000, {}]);
    assert.throws(
      () => resolveRateSettings({}, {}, { requireExplicit: true }),
      (error: RateConfigError) => error.problems[0] === SOURCES_REQUIRED,
    );
    const chosen = resolveRateSettings({}, { PAYLINK_RATES_SOURCES: 'static' }, { requireExplicit: true });
    assert.deepEqual([chosen.sources, chosen.explicit], [['static'], true]);
  });

  it('reads every PAYLINK_RATES_* setting, and names each mistake', () => {
    const settings = resolveRateSettings(
      {},
      {
        PAYLINK_RATES_SOURCES: 'CoinGecko, coinbase',
        PAYLINK_RATES_COINGECKO_URL: 'http://127.0.0.1:9/',
        PAYLINK_RATES_COINBASE_URL: 'https://cb.example/base',
        PAYLINK_RATES_REFRESH_S: '30',
        PAYLINK_RATES_MAX_AGE_S: '300',
        PAYLINK_RATES_PEGS: 'cngn=ngn,USDT=USD',
      },
    );
    assert.deepEqual(
      [settings.sources, settings.coingeckoUrl, settings.coinbaseUrl, settings.refreshMs, settings.maxAgeMs, settings.pegs],
      [['coingecko', 'coinbase'], 'http://127.0.0.1:9', 'https://cb.example/base', 30_000, 300_000, { CNGN: 'NGN', USDT: 'USD' }],
    );
    assert.ok(!settings.currencies.includes('GHS'), 'only Coinbase rates GHS: no quorum of two for it');
    assert.ok(settings.currencies.includes('NGN'));
    assert.ok(
      resolveRateSettings({}, { PAYLINK_RATES_SOURCES: 'coinbase,exchangerate' }).currencies.includes('GHS'),
      'Coinbase and ExchangeRate-API both rate GHS',
    );
    assert.ok(!resolveRateSettings({}, { PAYLINK_RATES_SOURCES: 'coingecko' }).currencies.includes('GHS'), 'CoinGecko alone does not');
    assert.throws(
      () =>
        resolveRateSettings(
          {},
          {
            PAYLINK_RATES_SOURCES: 'coingecko,oracle',
            PAYLINK_RATES_REFRESH_S: 'often',
            PAYLINK_RATES_MAX_AGE_S: '30',
            PAYLINK_RATES_PEGS: 'BTC=USD,CNGN=naira',
            PAYLINK_RATES_COINBASE_URL: 'ftp://x',
          },
        ),
      (error: RateConfigError) => {
        const text = error.problems.join('\n');
        for (const part of [
          /unknown source oracle/,
          /PAYLINK_RATES_REFRESH_S must be a positive number/,
          /PAYLINK_RATES_MAX_AGE_S \(30\) must be at least PAYLINK_RATES_REFRESH_S \(60\)/,
          /"BTC=USD"/,
          /"CNGN=naira"/,
          /PAYLINK_RATES_COINBASE_URL must be an http\(s\) URL/,
        ])
          assert.match(text, part);
        return true;
      },
    );
  });
  it('needs two sources that agree where money is real, unless said otherwise; reads the quorum, spread, move, confirmation and peg tolerance', () => {
    const real = (env: Record<string, string>) => resolveRateSettings({}, env, { requireExplicit: true, realMoney: true });
    assert.equal(real({ PAYLINK_RATES_SOURCES: 'coingecko,coinbase' }).quorum, 2);
    assert.throws(
      () => real({ PAYLINK_RATES_SOURCES: 'coingecko' }),
      (error: RateConfigError) => /set PAYLINK_RATES_QUORUM=1 to quote from one source on purpose/.test(error.problems.join('\n')),
      'one market source on a real chain is refused unless the quorum of one is said',
    );
    assert.equal(real({ PAYLINK_RATES_SOURCES: 'coingecko', PAYLINK_RATES_QUORUM: '1' }).quorum, 1);
    assert.equal(real({ PAYLINK_RATES_SOURCES: 'static' }).quorum, 1, 'the table alone, chosen on purpose: one fixed figure');
    // The sandbox keeps the table alone as it was, and rehearses a quorum of two once given two sources.
    assert.deepEqual(
      [{}, { PAYLINK_RATES_SOURCES: 'coinbase' }, { PAYLINK_RATES_SOURCES: 'coinbase,kraken,exchangerate' }].map((env) => resolveRateSettings({}, env).quorum),
      [1, 1, 2],
    );
    const defaults = resolveRateSettings({}, {});
    assert.deepEqual([defaults.maxSpread, defaults.maxMove, defaults.confirmMs, defaults.pegTolerance], ['0.02', '0.1', 900_000, '0.03']);
    const tuned = resolveRateSettings(
      {},
      {
        PAYLINK_RATES_SOURCES: 'coingecko,coinbase,kraken,exchangerate',
        PAYLINK_RATES_QUORUM: '3',
        PAYLINK_RATES_MAX_SPREAD: '1.5%',
        PAYLINK_RATES_MAX_MOVE: '0.25',
        PAYLINK_RATES_CONFIRM_S: '300',
        PAYLINK_RATES_PEG_TOLERANCE: '5%',
        PAYLINK_RATES_KRAKEN_URL: 'http://127.0.0.1:9/',
        PAYLINK_RATES_EXCHANGERATE_URL: 'https://fx.example/base/',
      },
    );
    assert.deepEqual(
      [tuned.quorum, tuned.maxSpread, tuned.maxMove, tuned.confirmMs, tuned.pegTolerance, tuned.krakenUrl, tuned.exchangerateUrl],
      [3, '0.015', '0.25', 300_000, '0.05', 'http://127.0.0.1:9', 'https://fx.example/base'],
    );
    assert.throws(
      () =>
        resolveRateSettings(
          {},
          {
            PAYLINK_RATES_SOURCES: 'coingecko,coinbase',
            PAYLINK_RATES_QUORUM: '3',
            PAYLINK_RATES_MAX_SPREAD: '2',
            PAYLINK_RATES_MAX_MOVE: '150%',
            PAYLINK_RATES_PEG_TOLERANCE: 'tight',
            PAYLINK_RATES_CONFIRM_S: '-1',
            PAYLINK_RATES_KRAKEN_URL: 'file:///etc/passwd',
          },
        ),
      (error: RateConfigError) => {
        const text = error.problems.join('\n');
        for (const part of [
          /PAYLINK_RATES_QUORUM \(3\) is more than the sources named/,
          /PAYLINK_RATES_MAX_SPREAD must be a percentage below 100% such as 2%.*got 2$/m,
          /PAYLINK_RATES_MAX_MOVE must be a percentage.*got 150%/,
          /PAYLINK_RATES_PEG_TOLERANCE must be a percentage.*got tight/,
          /PAYLINK_RATES_CONFIRM_S must be a positive number of seconds/,
          /PAYLINK_RATES_KRAKEN_URL must be an http\(s\) URL/,
        ])
          assert.match(text, part);
        return true;
      },
    );
    assert.throws(
      () => resolveRateSettings({}, { PAYLINK_RATES_QUORUM: 'two' }),
      (error: RateConfigError) => /PAYLINK_RATES_QUORUM must be a whole number/.test(error.message),
    );
  });
});

describe('exact rates from JSON', () => {
  it('keeps every digit a provider wrote, in numbers and strings, exponents included', () => {
    const parsed = parseJsonExact('{"a": 1612.123456789012345678901, "b": [6.2e-05, -3, 0], "c": "1E3", "d": "x\\"1.5", "e": true, "f": null}') as Record<
      string,
      unknown
    >;
    assert.deepEqual(parsed, { a: '1612.123456789012345678901', b: ['6.2e-05', '-3', '0'], c: '1E3', d: 'x"1.5', e: true, f: null });
    assert.deepEqual(readRateValue('1612.123456789012345678901'), ratioOf('1612.123456789012345678901'));
    assert.deepEqual(readRateValue('6.2e-05'), ratioOf('0.000062'));
    assert.deepEqual(
      [readRateValue('0'), readRateValue('-3'), readRateValue('abc'), readRateValue(undefined), readRateValue(true)],
      ['zero', 'negative', 'not_a_number', 'missing', 'not_a_number'],
    );
    assert.throws(() => parseJsonExact('{"a": 1.2.3}'), SyntaxError);
  });
});

describe('quote decimals (property)', () => {
  const digitsString = (maxWhole: number, maxFraction: number) =>
    fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** BigInt(maxWhole + maxFraction) - 1n }), fc.integer({ min: 0, max: maxFraction }))
      .map(([units, digits]) => fromUnits(units, digits));

  it('fiatAmount × rate round-trips to the quote within the asset’s last digit, and the quote never undercuts the exact price', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['NGN', 2] as const, ['JPY', 0] as const, ['KWD', 3] as const, ['EUR', 2] as const).chain(([currency, digits]) =>
          fc.tuple(
            fc.constant(currency),
            fc.bigInt({ min: 1n, max: 10n ** 10n }).map((units) => fromUnits(units, digits)),
          ),
        ),
        digitsString(5, 6),
        // Up to 10^12 units per dollar: more is no currency's (the book refuses it, see rates-quorum.test.ts).
        digitsString(7, 8).filter((value) => toUnits(value, 8) <= 10n ** 20n),
        ([currency, fiatAmount], assetPerUsd, currencyPerUsd) => {
          const rates = new RateBook(resolveRateSettings({ sources: ['static'], overrides: { USDT: assetPerUsd, [currency]: currencyPerUsd } }, {}), {
            assets: ['USDT'],
          });
          const quote = quoteCrypto(rates, fiatAmount, currency, 'USDT', new Date())!;
          const unit: Ratio = { num: 1n, den: 1_000_000n };
          const crypto = ratioOf(quote.cryptoAmount);
          const viaRate = multiplyRatio(ratioOf(fiatAmount), ratioOf(quote.rate));
          const exact = multiplyRatio(ratioOf(fiatAmount), divideRatio(ratioOf(assetPerUsd), ratioOf(currencyPerUsd)));
          const minus = (a: Ratio, b: Ratio): Ratio => ({ num: a.num * b.den - b.num * a.den, den: a.den * b.den });
          const below = (a: Ratio, b: Ratio) => a.num * b.den < b.num * a.den;
          // The quote is fiatAmount × rate rounded up: at most one unit of the last digit above it.
          assert.ok(!below(crypto, viaRate) && below(minus(crypto, viaRate), unit), `${quote.cryptoAmount} vs ${fiatAmount} × ${quote.rate}`);
          // And within one unit of the exact cross rate (the recorded rate is cut at 20 significant digits).
          const gap = minus(crypto, exact);
          assert.ok(
            below({ num: -gap.num, den: gap.den }, unit) && below(gap, unit),
            `${quote.cryptoAmount} vs the exact ${fiatAmount} × ${assetPerUsd} / ${currencyPerUsd}`,
          );
          // Back: the quote divided by the rate is the fiat amount within what one unit of the asset buys.
          const back = divideRatio(crypto, ratioOf(quote.rate));
          assert.ok(!below(back, ratioOf(fiatAmount)) && below(minus(back, ratioOf(fiatAmount)), divideRatio(unit, ratioOf(quote.rate))));
        },
      ),
      { numRuns: 300 },
    );
  });
});
