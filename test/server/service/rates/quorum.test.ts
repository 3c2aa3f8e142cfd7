/**
 * No single source sets a price, tried the way an attacker or a broken provider would, against local
 * stand-ins answering in the providers' own formats (the book alone; the service, its database and
 * the CLI are in rates-service.test.ts): two sources with one 9× off, three with one off, a source
 * that climbs 1 → 9 → 81 → 729, absurd values (1e30, 1e-30, 1e1000, negatives, NaN strings), a
 * redirect carrying the API key, a stablecoin off its peg; and a property test of the quorum.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { compareRatio, multiplyRatio, type Ratio } from '../../../../src/core/money.js';
import { createLogger } from '../../../../src/server/log.js';
import {
  agreeingSources,
  quoteCrypto,
  RateBook,
  resolveRateSettings,
  type RateSource,
  type RateSourceName,
} from '../../../../src/server/service/rates/index.js';
import { coinbaseBody, coingeckoBody, exchangeRateBody, krakenBody, startProvider, type FakeProvider } from '../../../support/rate-providers.js';
import { rateBookSuite } from '../../../support/rate-book.js';

const MINUTE = 60_000;
const KEY = 'CG-demo-key-4f1c';

describe('no single source sets a price', () => {
  const suite = rateBookSuite({ assets: ['USDT'], currencies: ['NGN', 'USD'] });
  const { book, logged } = suite;
  let gecko: FakeProvider, base: FakeProvider, kraken: FakeProvider, fx: FakeProvider;
  before(() => ({ gecko, base, kraken, fx } = suite));
  const named = (code: string) => logged(code).map((line) => `${line.source}:${line.currency}`);
  /** What a 1,000 USD link costs in USDT now (undefined: not quoted). */
  const thousandUsd = (rates: RateBook) => quoteCrypto(rates, '1000.00', 'USD', 'USDT', suite.time.now())?.cryptoAmount;

  it('two sources, one 9× off: no quote (a 503), never the bent mean; the log names the one that moved', async () => {
    const rates = book({ sources: ['coingecko', 'coinbase'] });
    assert.equal(rates.settings.quorum, 2);
    gecko.answer = coingeckoBody({ tether: { usd: 1, ngn: 1600 } });
    base.answer = coinbaseBody({ USDT: '1', NGN: '1600' });
    await rates.refresh();
    assert.equal(thousandUsd(rates), '1000.000000');

    // Coinbase now says a tether is worth $9 (0.111111 per dollar): today the mean of two sets the price.
    base.answer = coinbaseBody({ USDT: '0.111111', NGN: '1600' });
    suite.time.advance(MINUTE);
    await rates.refresh();
    assert.equal(thousandUsd(rates), undefined, 'not 555.555556 USDT: no quote at all');
    assert.deepEqual(rates.whyNotPair('USDT', 'USD'), {
      reason: 'no_quorum',
      pair: 'USDT/USD',
      message: '2 rate sources must agree on USDT/USD within 2%; 1 of the 2 that answered do',
    });
    assert.deepEqual(named('rate_source_outlier'), ['coinbase:USDT'], 'the one that moved away from the last quoted rate, not both');
    assert.deepEqual(
      logged('rate_no_quorum').map((line) => line.pair),
      ['USDT/USD'],
    );
    assert.ok(rates.pair('USDT', 'NGN') === undefined && rates.reasons()['USDT/NGN'] === 'no_quorum');

    // The same disagreement with nothing quoted before: neither is blamed, nothing is quoted.
    suite.lines.length = 0;
    const fresh = book({ sources: ['coingecko', 'coinbase'] });
    await fresh.refresh();
    assert.equal(thousandUsd(fresh), undefined);
    assert.deepEqual(named('rate_source_outlier'), [], 'two sources that disagree, with nothing to tell them apart, are not one honest and one outlier');
    assert.equal(logged('rate_no_quorum').length, 1);
  });

  it('three sources, one off: the honest median is quoted and the odd one is named, once', async () => {
    const rates = book({ sources: ['coingecko', 'coinbase', 'kraken'] });
    gecko.answer = coingeckoBody({ tether: { usd: '1.0002', ngn: '1600' } });
    base.answer = coinbaseBody({ USDT: '0.9999', NGN: '1601' });
    kraken.answer = krakenBody({ USDTZUSD: '9.00000000' });
    await rates.refresh();
    assert.equal(thousandUsd(rates), '999.850020', 'the median of coingecko and coinbase: 0.99985002 per dollar');
    assert.deepEqual(rates.perUsd('USDT')!.sources, ['coingecko', 'coinbase']);
    assert.deepEqual(named('rate_source_outlier'), ['kraken:USDT']);
    assert.equal(logged('rate_source_outlier')[0]!.reason, 'spread');
    const basis = rates.quotePair('USDT', 'USD')!.basis[0]!;
    assert.deepEqual(
      basis.sources.map(({ source, perUsd, used }) => [source, perUsd, used]),
      [
        ['coingecko', '0.99980003999200159968', true],
        ['coinbase', '0.9999', true],
        ['kraken', '0.11111111111111111111', false],
      ],
      'the quote records every value, the outlier marked',
    );
    await rates.refresh();
    assert.equal(logged('rate_source_outlier').length, 1, 'said when it starts, not at every refresh');
    kraken.answer = krakenBody({ USDTZUSD: '1.0001' });
    await rates.refresh();
    assert.deepEqual(rates.perUsd('USDT')!.sources, ['coingecko', 'coinbase', 'kraken']);
    assert.match(String(logged('rate_source_recovered')[0]?.message), /kraken's USDT\/USD agrees with the other sources again/);
  });

  it('absurd values (1e30, 1e-30, 1e1000, negative, NaN strings) never become a rate; one absurd source of two blames only itself', async () => {
    const absurd: Array<[string | number, string]> = [
      ['1e30', 'out_of_range'],
      ['1e-30', 'out_of_range'],
      ['1e1000', 'out_of_range'],
      ['-1', 'negative'],
      ['NaN', 'not_a_number'],
      ['Infinity', 'not_a_number'],
      ['0', 'zero'],
    ];
    for (const [usd, reason] of absurd) {
      suite.lines.length = 0;
      // One source alone (a quorum of one): whatever it says is all there is.
      gecko.answer = coingeckoBody({ tether: { usd, ngn: 1600 } });
      const alone = book({ sources: ['coingecko'] });
      await alone.refresh();
      assert.equal(thousandUsd(alone), undefined, `usd: ${usd} is never a price`);
      assert.equal(alone.pair('USDT', 'NGN'), undefined, `usd: ${usd}: the naira, crossed through it, neither`);
      assert.deepEqual(alone.readiness().stale, ['USDT/NGN', 'USDT/USD'], `usd: ${usd}: readiness tells the truth`);
      const line = suite.lines.find((entry) => entry.source === 'coingecko' && entry.currency === 'USDT');
      assert.equal(line?.reason, reason, `usd: ${usd} is logged as ${reason}: ${JSON.stringify(suite.lines)}`);
      assert.equal(line?.code, reason === 'out_of_range' ? 'rate_source_outlier' : 'rate_value_invalid');
    }
    // Coinbase's strings, and a cross that leaves the bounds though each figure is within them.
    suite.lines.length = 0;
    base.answer = coinbaseBody({ USDT: '1e1000', NGN: '-5' });
    gecko.answer = coingeckoBody({ tether: { usd: '1e-7', ngn: '1e6' } });
    const both = book({ sources: ['coingecko', 'coinbase'], quorum: 1 });
    await both.refresh();
    assert.equal(both.pair('USDT', 'NGN'), undefined);
    assert.equal(both.whyNot('NGN')?.reason, 'stale', 'no usable naira: 10^13 per dollar is none');
    assert.deepEqual(named('rate_source_outlier').sort(), ['coinbase:USDT', 'coingecko:NGN']);

    // Two sources, one answering 1e30: the honest one is not flagged, and (a quorum of one said) it prices.
    suite.lines.length = 0;
    gecko.answer = coingeckoBody({ tether: { usd: '1e30', ngn: '1600' } });
    base.answer = coinbaseBody({ USDT: '1', NGN: '1600' });
    const one = book({ sources: ['coingecko', 'coinbase'], quorum: 1 });
    await one.refresh();
    assert.equal(thousandUsd(one), '1000.000000');
    assert.deepEqual(named('rate_source_outlier'), ['coingecko:USDT', 'coingecko:NGN'], 'only the absurd source, for what it priced');
    // With a quorum of two, one absurd source of two means no quote: it can't be outvoted, but it takes nobody else's name.
    suite.lines.length = 0;
    const two = book({ sources: ['coingecko', 'coinbase'] });
    await two.refresh();
    assert.equal(thousandUsd(two), undefined);
    assert.deepEqual(two.whyNotPair('USDT', 'USD')?.reason, 'no_quorum');
    assert.ok(
      named('rate_source_outlier').every((name) => name.startsWith('coingecko:')),
      JSON.stringify(suite.lines),
    );
  });

  it('a single source that climbs 1 → 9 → 81 → 729 is held at each step, and believed only once it has lasted (or is accepted)', async () => {
    const rates = book({ sources: ['coingecko'] });
    assert.equal(rates.settings.quorum, 1);
    const price = async (usd: number) => {
      gecko.answer = coingeckoBody({ tether: { usd, ngn: usd * 1600 } });
      suite.time.advance(MINUTE);
      await rates.refresh();
      return thousandUsd(rates);
    };
    assert.equal(await price(1), '1000.000000');
    for (const usd of [9, 81, 729]) {
      assert.equal(await price(usd), undefined, `$${usd}: held, not 1000/${usd} USDT`);
      assert.equal(rates.whyNotPair('USDT', 'USD')?.reason, 'held');
    }
    assert.deepEqual(
      logged('rate_move_held').map((line) => [line.pair, line.from, line.to]),
      [
        ['USDT/USD', '1', '0.11111111111111111111'],
        ['USDT/USD', '1', '0.012345679012345679012'],
        ['USDT/USD', '1', '0.0013717421124828532235'],
      ],
      'each step starts the hold again: climbing never gets through by waiting',
    );
    assert.match(
      rates.whyNotPair('USDT', 'USD')!.message,
      /USDT\/USD moved 99\.8% from its last quoted rate and is held since .*paylink rates accept USDT\/USD/,
    );
    // The naira is not held: only the codes that moved are.
    assert.equal(rates.whyNot('NGN'), undefined);

    // 729 stays for the confirmation time (900 s): then it is believed.
    suite.time.advance(14 * MINUTE);
    await rates.refresh();
    assert.equal(thousandUsd(rates), undefined, '14 minutes and a minute before: not yet');
    suite.time.advance(MINUTE);
    await rates.refresh();
    assert.equal(thousandUsd(rates), '1.371743', 'a move that lasted 15 minutes is believed');
    assert.deepEqual(
      logged('rate_move_accepted').map((line) => [line.pair, line.by]),
      [['USDT/USD', 'persistence']],
    );
    // And back within 10% of where it was quoted: followed at once.
    assert.equal(await price(700), '1.428572');
  });

  it('a move that reverts within the hold is quoted again at once, at the level it came back to', async () => {
    const rates = book({ sources: ['coinbase'] });
    base.answer = coinbaseBody({ USDT: '1', NGN: '1600' });
    await rates.refresh();
    base.answer = coinbaseBody({ USDT: '1', NGN: '2400' });
    suite.time.advance(MINUTE);
    await rates.refresh();
    assert.equal(rates.whyNot('NGN')?.reason, 'held');
    assert.equal(rates.pair('USDT', 'NGN'), undefined);
    base.answer = coinbaseBody({ USDT: '1', NGN: '1620' });
    suite.time.advance(MINUTE);
    await rates.refresh();
    assert.equal(rates.pair('USDT', 'NGN')!.rate, '0.000617283950617283950617');
    assert.deepEqual(
      logged('rate_move_reverted').map((line) => line.pair),
      ['USD/NGN'],
    );
  });

  it('a pegged stablecoin off its peg is not quoted (rate_depeg), and is again once back within the tolerance', async () => {
    const rates = book({ sources: ['coingecko', 'coinbase', 'kraken'], pegs: { USDT: 'USD' } });
    gecko.answer = coingeckoBody({ tether: { usd: '0.95', ngn: '1520' } });
    base.answer = coinbaseBody({ USDT: '1.0526', NGN: '1600' });
    kraken.answer = krakenBody({ USDTZUSD: '0.9502' });
    await rates.refresh();
    assert.equal(thousandUsd(rates), undefined, 'a tether at $0.95 is 5% off its peg: not quoted at par, nor at 0.95');
    assert.equal(rates.whyNotPair('USDT', 'NGN')?.reason, 'depeg');
    assert.match(rates.whyNot('USDT')!.message, /USDT is 5\.2\d*% off its peg to USD \(tolerance 3%\)/);
    assert.deepEqual(
      logged('rate_depeg').map((line) => [line.pair, line.peg]),
      [['USDT/USD', 'USD']],
    );
    assert.equal(rates.whyNot('NGN'), undefined, 'the naira itself is quoted');

    gecko.answer = coingeckoBody({ tether: { usd: '0.99', ngn: '1584' } });
    base.answer = coinbaseBody({ USDT: '1.0101', NGN: '1600' });
    kraken.answer = krakenBody({ USDTZUSD: '0.9901' });
    suite.time.advance(MINUTE);
    await rates.refresh();
    assert.equal(thousandUsd(rates), '1010.100000', 'back within 3%: quoted at its market value');
    assert.equal(logged('rate_peg_restored').length, 1);
  });

  it('a source that redirects is not followed: the answer is not quoted and its API key reaches no other origin', async () => {
    const elsewhere = await startProvider();
    try {
      elsewhere.answer = coingeckoBody({ tether: { usd: '0.5', ngn: '800' } });
      gecko.answer = { status: 302, headers: { location: `${elsewhere.url}/api/v3/simple/price?ids=tether&vs_currencies=usd,ngn` }, body: '' };
      base.answer = coinbaseBody({ USDT: '1', NGN: '1600' });
      const rates = book({ sources: ['coingecko', 'coinbase'], quorum: 1, coingeckoKey: KEY });
      await rates.refresh();
      assert.deepEqual(elsewhere.requests, [], 'the redirect is not followed');
      assert.equal(gecko.headers[0]?.['x-cg-demo-api-key'], KEY, 'the key goes to the configured origin');
      assert.equal(thousandUsd(rates), '1000.000000', 'the other source prices; the redirect target does not');
      assert.deepEqual(rates.perUsd('USDT')!.sources, ['coinbase']);
      const failed = logged('rate_source_failed')[0]!;
      assert.deepEqual([failed.source, failed.reason, failed.httpStatus], ['coingecko', 'redirect', 302]);
      assert.ok(!JSON.stringify(suite.lines).includes(KEY) && !JSON.stringify(suite.lines).includes(elsewhere.url), 'neither the key nor the target is logged');
      // A permanent redirect, the same.
      gecko.answer = { status: 308, headers: { location: elsewhere.url }, body: '' };
      await rates.refresh();
      assert.deepEqual(elsewhere.requests, []);
    } finally {
      await elsewhere.close();
    }
  });

  it('ExchangeRate-API prices the naira beside CoinGecko and Coinbase: three sources for it, as for USDT', async () => {
    const rates = book({ sources: ['coingecko', 'coinbase', 'kraken', 'exchangerate'] });
    gecko.answer = coingeckoBody({ tether: { usd: 1, ngn: 1600 } });
    base.answer = coinbaseBody({ USDT: '1', NGN: '1602' });
    kraken.answer = krakenBody({ USDTZUSD: '1.0000' });
    fx.answer = exchangeRateBody({ NGN: 16040 });
    await rates.refresh();
    assert.deepEqual(rates.perUsd('NGN')!.sources, ['coingecko', 'coinbase']);
    assert.deepEqual(named('rate_source_outlier'), ['exchangerate:NGN']);
    assert.deepEqual(rates.perUsd('USDT')!.sources, ['coingecko', 'coinbase', 'kraken']);
    const ngn = rates.markets().find((market) => market.code === 'NGN')!;
    assert.deepEqual(
      ngn.sources.map((state) => [state.source, state.status]),
      [
        ['coingecko', 'agrees'],
        ['coinbase', 'agrees'],
        ['exchangerate', 'outlier'],
      ],
      'Kraken has no naira: the Rates view leaves it out',
    );
  });
});

describe('the quorum (property)', () => {
  const SPREAD: Ratio = { num: 2n, den: 100n };
  /** A positive value as a ratio of a few digits. */
  const value = fc.bigInt({ min: 1n, max: 10n ** 12n }).map((units): Ratio => ({ num: units, den: 10n ** 6n }));

  /**
   * A market: an honest value, honest sources each within the spread of their median, and other
   * sources saying anything at all (including each other's values): the honest ones more than half.
   */
  const market = fc
    .tuple(value, fc.integer({ min: 2, max: 5 }))
    .chain(([center, honestCount]) =>
      fc.tuple(
        fc.constant(center),
        // Each honest value within ±0.99% of the centre: all then lie within 2% of their median.
        fc.array(fc.integer({ min: -99, max: 99 }), { minLength: honestCount, maxLength: honestCount }),
        fc.array(
          fc.oneof(
            value,
            fc.constant(center),
            fc.integer({ min: 1, max: 1000 }).map((k): Ratio => multiplyRatio(center, { num: BigInt(k), den: 100n })),
          ),
          {
            minLength: 0,
            maxLength: honestCount - 1,
          },
        ),
      ),
    )
    .map(([center, offsets, others]) => ({
      honest: offsets.map((offset): Ratio => multiplyRatio(center, { num: 10_000n + BigInt(offset), den: 10_000n })),
      others,
    }));

  const withinSpreadOfHonest = (quote: Ratio, honest: Ratio[]) => {
    const sorted = [...honest].sort(compareRatio);
    // min(H) / (1 + s) ≤ quote ≤ max(H) / (1 − s)
    const low = { num: sorted[0]!.num * SPREAD.den, den: sorted[0]!.den * (SPREAD.den + SPREAD.num) };
    const high = { num: sorted.at(-1)!.num * SPREAD.den, den: sorted.at(-1)!.den * (SPREAD.den - SPREAD.num) };
    return compareRatio(quote, low) >= 0 && compareRatio(quote, high) <= 0;
  };

  it('whenever more than half of the sources agree, the value chosen lies within the spread of the honest ones', () => {
    fc.assert(
      fc.property(market, fc.nat(), ({ honest, others }, seed) => {
        // The sources in any order.
        const all = [...honest.map((v) => ({ honest: true, value: v })), ...others.map((v) => ({ honest: false, value: v }))]
          .map((entry, index) => ({ ...entry, key: (index * 7919 + seed) % 10_007 }))
          .sort((a, b) => a.key - b.key)
          .map((entry, index) => ({ source: `s${index}`, value: entry.value, honest: entry.honest }));
        const agreement = agreeingSources(all, SPREAD);
        assert.ok(!agreement.undecided && agreement.value, 'a majority that agrees is always found');
        assert.ok(agreement.agreed.length >= honest.length, 'at least as many as the honest agree');
        assert.ok(
          withinSpreadOfHonest(agreement.value, honest),
          `${agreement.value.num}/${agreement.value.den} against ${honest.map((h) => `${h.num}/${h.den}`)}`,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('the book quotes within the spread of the honest sources, whatever the others answer', async () => {
    const names: RateSourceName[] = ['coingecko', 'coinbase', 'kraken', 'exchangerate', 'static'];
    await fc.assert(
      fc.asyncProperty(
        market.filter(({ honest, others }) => honest.length + others.length <= names.length),
        async ({ honest, others }) => {
          const values = [...honest, ...others];
          const sources: RateSource[] = values.map((value, index) => ({
            name: names[index]!,
            read: async () => ({ values: new Map([['NGN', value]]), problems: new Map() }),
          }));
          const settings = resolveRateSettings({ sources: names.slice(0, values.length), quorum: Math.min(2, honest.length), currencies: ['NGN'] }, {});
          const rates = new RateBook(settings, { assets: [], sources, log: createLogger(() => {}) });
          await rates.refresh();
          const quoted = rates.perUsd('NGN');
          // Values outside 10^-12..10^12 per dollar are dropped first: the honest ones here are all within.
          assert.ok(quoted, 'quoted');
          assert.ok(withinSpreadOfHonest(quoted.value, honest));
        },
      ),
      { numRuns: 150 },
    );
  });
});
