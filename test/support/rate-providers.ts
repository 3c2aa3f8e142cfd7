/**
 * Local stand-ins for the rate providers: real HTTP servers on loopback that answer the documented
 * request paths in the documented formats (CoinGecko's `/api/v3/simple/price`, JSON numbers; Coinbase's
 * `/v2/exchange-rates`, decimal strings; Kraken's `/0/public/Ticker`, decimal strings in arrays;
 * ExchangeRate-API's `/v6/latest/USD`, JSON numbers), as the test sets them, and record every request
 * (path and query, and its headers).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a provider answers next: a status, headers and a raw body, or no answer at all. */
export type ProviderAnswer = { status?: number; headers?: Record<string, string>; body: string } | 'hang';

export interface FakeProvider {
  url: string;
  /** Each request's path and query, in order. */
  requests: string[];
  /** Each request's headers, in the same order. */
  headers: Record<string, string | string[] | undefined>[];
  answer: ProviderAnswer;
  close(): Promise<void>;
}

/** A stand-in answering `path` (any path, when undefined: a server a redirect points to). */
export async function startProvider(path?: string): Promise<FakeProvider> {
  const provider: FakeProvider = { url: '', requests: [], headers: [], answer: { status: 500, body: '{}' }, close: async () => {} };
  const server: Server = createServer((request, response) => {
    provider.requests.push(request.url ?? '');
    provider.headers.push(request.headers);
    if (path !== undefined && new URL(request.url ?? '/', 'http://x').pathname !== path) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const answer = provider.answer;
    if (answer === 'hang') return;
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return provider;
}

/** A CoinGecko stand-in (`GET /api/v3/simple/price`). */
export const startCoingecko = () => startProvider('/api/v3/simple/price');
/** A Coinbase stand-in (`GET /v2/exchange-rates`). */
export const startCoinbase = () => startProvider('/v2/exchange-rates');
/** A Kraken stand-in (`GET /0/public/Ticker`). */
export const startKraken = () => startProvider('/0/public/Ticker');
/** An ExchangeRate-API open access stand-in (`GET /v6/latest/USD`). */
export const startExchangeRate = () => startProvider('/v6/latest/USD');

/**
 * CoinGecko's answer: each coin's price in each currency, written as JSON numbers digit for digit
 * (`{"tether": {"usd": 1, "ngn": 1612.4}}`). A value that is not a number literal is written as JSON
 * (a string, null…), to serve nonsense.
 */
export function coingeckoBody(prices: Record<string, Record<string, string | number | null>>, extra = ''): { body: string } {
  const value = (v: string | number | null) => (typeof v === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v) ? v : JSON.stringify(v));
  const coins = Object.entries(prices).map(
    ([id, byCurrency]) =>
      `${JSON.stringify(id)}:{${Object.entries(byCurrency)
        .map(([currency, v]) => `${JSON.stringify(currency)}:${value(v)}`)
        .join(',')}}`,
  );
  return { body: `{${[...coins, ...(extra ? [extra] : [])].join(',')}}` };
}

/** Coinbase's answer: units per one USD as decimal strings (`{"data": {"currency": "USD", "rates": {…}}}`). */
export function coinbaseBody(rates: Record<string, unknown>, currency = 'USD'): { body: string } {
  return { body: JSON.stringify({ data: { currency, rates } }) };
}

/**
 * Kraken's ticker answer: each pair's last trade (`c`: price, lot volume), best ask and bid (`a`, `b`:
 * price, whole lot volume, lot volume), as decimal strings, keyed by Kraken's own pair name
 * (`{"error": [], "result": {"USDTZUSD": {…}}}`).
 */
export function krakenBody(prices: Record<string, string>): { body: string } {
  const result = Object.fromEntries(
    Object.entries(prices).map(([pair, price]) => [
      pair,
      {
        a: [price, '1000', '1000.000'],
        b: [price, '1000', '1000.000'],
        c: [price, '25.00000000'],
        v: ['100', '2000'],
        p: [price, price],
        t: [10, 200],
        l: [price, price],
        h: [price, price],
        o: price,
      },
    ]),
  );
  return { body: JSON.stringify({ error: [], result }) };
}

/**
 * ExchangeRate-API's open access answer: units per USD as JSON numbers, written digit for digit, with
 * the update times it documents (`time_next_update_unix`: when to ask again; 0 by default, so that
 * every refresh asks).
 */
export function exchangeRateBody(rates: Record<string, string | number>, nextUpdate = 0): { body: string } {
  const entries = Object.entries({ USD: 1, ...rates }).map(([code, value]) => `${JSON.stringify(code)}:${value}`);
  return {
    body:
      `{"result":"success","provider":"https://www.exchangerate-api.com","documentation":"https://www.exchangerate-api.com/docs/free",` +
      `"terms_of_use":"https://www.exchangerate-api.com/terms","time_last_update_unix":${Math.max(0, nextUpdate - 86_400)},` +
      `"time_last_update_utc":"Mon, 02 Jun 2025 00:02:31 +0000","time_next_update_unix":${nextUpdate},` +
      `"time_next_update_utc":"Tue, 03 Jun 2025 00:02:31 +0000","time_eol_unix":0,"base_code":"USD","rates":{${entries.join(',')}}}`,
  };
}

/** The four stand-ins at once (each answers a 500 until a test sets its `answer`), with their base URLs as the rate settings name them. */
export async function startRateProviders() {
  const [coingecko, coinbase, kraken, exchangerate] = await Promise.all([startCoingecko(), startCoinbase(), startKraken(), startExchangeRate()]);
  const all = [coingecko, coinbase, kraken, exchangerate];
  return {
    coingecko,
    coinbase,
    kraken,
    exchangerate,
    urls: { coingeckoUrl: coingecko.url, coinbaseUrl: coinbase.url, krakenUrl: kraken.url, exchangerateUrl: exchangerate.url },
    /** Requests made so far, to all four. */
    requestCount: () => all.reduce((sum, provider) => sum + provider.requests.length, 0),
    /** Forgets the requests recorded so far. */
    forget: () => all.forEach((provider) => ([provider.requests.length, provider.headers.length] = [0, 0])),
    close: () => Promise.all(all.map((provider) => provider.close())).then(() => {}),
  };
}
