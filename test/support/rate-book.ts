/**
 * The tests of the rate book alone (no database): the four provider stand-ins for the whole suite,
 * and before each test a fresh clock and log; `book()` makes a book on them.
 */
import { after, before, beforeEach } from 'node:test';
import { createLogger } from '../../src/server/log.js';
import { RateBook, resolveRateSettings, type RateOptions } from '../../src/server/service/rates/index.js';
import { testClock } from './money.js';
import { startRateProviders, type FakeProvider } from './rate-providers.js';

const START = Date.UTC(2025, 5, 1, 12);

/** Registers the suite's hooks; its fields are set once they have run. */
export function rateBookSuite(defaults: { assets: string[]; currencies: string[] }) {
  let providers: Awaited<ReturnType<typeof startRateProviders>>;
  const suite = {
    gecko: undefined as unknown as FakeProvider,
    base: undefined as unknown as FakeProvider,
    kraken: undefined as unknown as FakeProvider,
    fx: undefined as unknown as FakeProvider,
    /** The stand-ins' base URLs, as the settings name them. */
    urls: {} as Awaited<ReturnType<typeof startRateProviders>>['urls'],
    /** Every log line of the test, parsed. */
    lines: [] as Array<Record<string, unknown>>,
    time: testClock(START),
    /** Requests made to the stand-ins in this test. */
    requestCount: () => providers.requestCount(),
    /**
     * A book on the stand-ins, with `options` over the suite's currencies and a 10 s timeout: a source
     * that times out keeps its last figures, which a busy machine must not bring about by accident.
     */
    book: (options: RateOptions & { overrides?: Record<string, string> } = {}) =>
      new RateBook(resolveRateSettings({ ...providers.urls, currencies: defaults.currencies, timeoutS: 10, ...options }, {}), {
        assets: defaults.assets,
        now: () => suite.time.now(),
        log: createLogger((line) => suite.lines.push(JSON.parse(line))),
      }),
    /** The log lines of `code`. */
    logged: (code: string) => suite.lines.filter((line) => line.code === code),
  };
  before(async () => {
    providers = await startRateProviders();
    Object.assign(suite, { gecko: providers.coingecko, base: providers.coinbase, kraken: providers.kraken, fx: providers.exchangerate, urls: providers.urls });
  });
  after(() => providers.close());
  beforeEach(() => {
    suite.lines.length = 0;
    suite.time = testClock(START);
    providers.forget();
  });
  return suite;
}
