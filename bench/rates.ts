/**
 * Quoting from memory: session starts per second when prices come from the market (CoinGecko,
 * Coinbase, Kraken and ExchangeRate-API stand-ins on loopback: three sources for each of USDT and the
 * naira, a quorum of two within 2%, refreshed every second in the background, each refresh settling
 * the last quoted rates in the database) against the same service quoting from the static table (the
 * baseline), measured in the same run, in rounds that alternate the two so that the machine's own drift
 * falls on both; and the work one session start does in each: database queries (counted on the
 * service's database, the refresh's own on `quoted_rates` apart) and provider requests while starting
 * sessions. The queries per start must be the table's, and the provider requests and the refresh's
 * queries those of the refresh schedule (four sources and one transaction a second), however many
 * sessions start: a quote reads the rate book in memory, never the network or the database.
 *
 * In process (`app.request`, in-memory PGlite), eight starts in flight at a time: the figure is the
 * service's own work per start, without sockets or an HTTP load generator in the way.
 */
import { createLogger } from '../src/server/log.js';
import { openDatabase, type Database, type Queryable } from '../src/server/db/index.js';
import { createApiKey } from '../src/server/service/keys/index.js';
import type { RateOptions } from '../src/server/service/rates/index.js';
import { startService } from '../src/server/service/serve.js';
import { coinbaseBody, coingeckoBody, exchangeRateBody, krakenBody, startRateProviders } from '../test/support/rate-providers.js';

export interface RatesRow {
  target: string;
  startsPerSecond: number;
  vsStatic: number;
  starts: number;
  seconds: number;
  dbQueriesPerStart: number;
  /**
   * Requests the market service made to the providers during its rounds: its background refresh's
   * (4 sources × seconds), not the starts'. The table asks nothing (left blank).
   */
  providerRequests?: number;
  /** The market service's refresh's queries on `quoted_rates` during its rounds (a few a second), not the starts'. */
  refreshQueries?: number;
}

const LINK = {
  title: 'Bench link',
  description: 'Quotes',
  fiatAmount: 16000,
  fiatCurrency: ['NGN'],
  action: { successMessage: 'Thanks' },
  options: {},
  cart: { items: [] },
};
const ROUNDS = 6;
const ROUND_MS = Number(process.env.BENCH_SECONDS ?? 5) * 200;
const IN_FLIGHT = 8;

/**
 * A database that counts the queries made through it, transactions included: the rate refresh's on
 * `quoted_rates` apart from the others.
 */
function counting(db: Database): { db: Database; count: () => number; refreshCount: () => number } {
  let queries = 0;
  let refresh = 0;
  const wrap = <T extends Queryable>(target: T): T =>
    new Proxy(target, {
      get(object, name) {
        if (name === 'query')
          return (...args: Parameters<Queryable['query']>) => (args[0].includes('quoted_rates') ? refresh++ : queries++, object.query(...args));
        if (name === 'transaction') return (work: (tx: Queryable) => Promise<unknown>) => (object as unknown as Database).transaction((tx) => work(wrap(tx)));
        const value = Reflect.get(object, name);
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
  return { db: wrap(db), count: () => queries, refreshCount: () => refresh };
}

/** A service (no background work but the rates') with one link; `start()` starts one session. */
async function serviceWith(rateSettings: RateOptions) {
  const raw = await openDatabase();
  const { db, count, refreshCount } = counting(raw);
  const service = await startService({
    db,
    rateSettings,
    payoutWorker: false,
    webhookWorker: false,
    expirySweepMs: 3_600_000,
    retentionSweepMs: 3_600_000,
    sessionRateLimit: false,
    env: {},
    logger: createLogger(() => {}),
  });
  const key = await createApiKey(raw, { name: 'bench' });
  const created = await service.app.request('/v1/payment-link', {
    method: 'POST',
    headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
    body: JSON.stringify(LINK),
  });
  const { slug } = (await created.json()) as { slug: string };
  return {
    count,
    refreshCount,
    async start() {
      const response = await service.app.request(`/v1/checkout/${slug}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"assetId":"USDT"}',
      });
      if (response.status !== 201) throw new Error(`a session start answered ${response.status}: ${await response.text()}`);
    },
    async close() {
      await service.close();
      await raw.close();
    },
  };
}

/** Starts sessions for `ms`, `IN_FLIGHT` at a time; how many. */
async function startFor(start: () => Promise<void>, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let started = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < until) {
        await start();
        started++;
        // Let timers and sockets run between starts, as a server's event loop does (PGlite answers in
        // microtasks: without this, the background refresh would never get a turn while measuring).
        await new Promise(setImmediate);
      }
    }),
  );
  return started;
}

export async function runRatesBench(): Promise<RatesRow[]> {
  const providers = await startRateProviders();
  const asked = providers.requestCount;
  providers.coingecko.answer = coingeckoBody({ tether: { usd: '1.0002', ngn: '1612.4' } });
  providers.coinbase.answer = coinbaseBody({ USDT: '0.9998', NGN: '1611.9' });
  providers.kraken.answer = krakenBody({ USDTZUSD: '1.0001' });
  providers.exchangerate.answer = exchangeRateBody({ NGN: '1610.2' });
  const table = await serviceWith({ sources: ['static'] });
  const market = await serviceWith({
    sources: ['coingecko', 'coinbase', 'kraken', 'exchangerate'],
    ...providers.urls,
    refreshS: 1,
    currencies: ['NGN'],
    pegs: { CNGN: 'NGN' },
  });
  const totals = new Map([table, market].map((service) => [service, { starts: 0, ms: 0, queries: 0, requests: 0, refresh: 0 }]));
  try {
    // Warm both (JIT, PGlite's caches) before measuring.
    await startFor(table.start, 300);
    await startFor(market.start, 300);
    for (let round = 0; round < ROUNDS; round++) {
      // Each goes first every other round.
      for (const service of round % 2 ? [market, table] : [table, market]) {
        const total = totals.get(service)!;
        const [queries, refresh, requests, began] = [service.count(), service.refreshCount(), asked(), performance.now()];
        total.starts += await startFor(service.start, ROUND_MS);
        total.ms += performance.now() - began;
        total.queries += service.count() - queries;
        total.refresh += service.refreshCount() - refresh;
        total.requests += asked() - requests;
      }
    }
  } finally {
    await Promise.all([table.close(), market.close(), providers.close()]);
  }
  const row = (target: string, service: typeof table): RatesRow => {
    const { starts, ms, queries, requests, refresh } = totals.get(service)!;
    const baseline = totals.get(table)!;
    const perSecond = (starts * 1000) / ms;
    return {
      target,
      startsPerSecond: Math.round(perSecond),
      vsStatic: Number((perSecond / ((baseline.starts * 1000) / baseline.ms)).toFixed(2)),
      starts,
      seconds: Number((ms / 1000).toFixed(1)),
      dbQueriesPerStart: Number((queries / starts).toFixed(2)),
      ...(service === market ? { providerRequests: requests, refreshQueries: refresh } : {}),
    };
  };
  return [
    row('POST …/sessions, prices from the static table (baseline)', table),
    row('POST …/sessions, prices from CoinGecko, Coinbase, Kraken, ExchangeRate-API (quorum of 2, fetched every 1 s in the background)', market),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await runRatesBench());
