/**
 * Local stand-ins for the rate providers: real HTTP servers on loopback that answer the documented
 * request paths in the documented formats (CoinGecko's `/api/v3/simple/price`, JSON numbers; Coinbase's
 * `/v2/exchange-rates`, decimal strings), as the test sets them, and record every request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a provider answers next: a status and a raw body, or no answer at all. */
export type ProviderAnswer = { status?: number; body: string } | 'hang';

export interface FakeProvider {
  url: string;
  /** Each request's path and query, in order. */
  requests: string[];
  answer: ProviderAnswer;
  close(): Promise<void>;
}

async function startProvider(path: string): Promise<FakeProvider> {
  const provider: FakeProvider = { url: '', requests: [], answer: { status: 500, body: '{}' }, close: async () => {} };
  const server: Server = createServer((request, response) => {
    provider.requests.push(request.url ?? '');
    if (new URL(request.url ?? '/', 'http://x').pathname !== path) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const answer = provider.answer;
    if (answer === 'hang') return;
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.body);
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

/**
 * CoinGecko's answer: each coin's price in each currency, written as JSON numbers digit for digit
 * (`{"tether": {"usd": 1, "ngn": 1612.4}}`). A value that is not a number literal is written as JSON
 * (a string, null…), to serve nonsense.
 */
export function coingeckoBody(prices: Record<string, Record<string, string | number | null>>, extra = ''): { body: string } {
  const value = (v: string | number | null) => (typeof v === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v) ? v : JSON.stringify(v));
  const coins = Object.entries(prices).map(
    ([id, byCurrency]) => `${JSON.stringify(id)}:{${Object.entries(byCurrency).map(([currency, v]) => `${JSON.stringify(currency)}:${value(v)}`).join(',')}}`,
  );
  return { body: `{${[...coins, ...(extra ? [extra] : [])].join(',')}}` };
}

/** Coinbase's answer: units per one USD as decimal strings (`{"data": {"currency": "USD", "rates": {…}}}`). */
export function coinbaseBody(rates: Record<string, unknown>, currency = 'USD'): { body: string } {
  return { body: JSON.stringify({ data: { currency, rates } }) };
}
