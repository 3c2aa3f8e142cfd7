/**
 * The rate sources, each read the way its provider documents it, each answer turned into one shape:
 * how many units of each code (asset or fiat currency) one US dollar buys, as exact ratios.
 *
 * - `coingecko`: `GET {base}/api/v3/simple/price?ids=tether&vs_currencies=usd,ngn,…` answers
 *   `{"tether": {"usd": 1.0002, "ngn": 1612.4, …}}`: each coin's price in each currency. An asset with
 *   a coin id is worth `1 / price.usd` per USD; a currency is crossed through USD with the same coin:
 *   `price.ngn / price.usd` naira per dollar (with several coins, the median of their crosses).
 * - `coinbase`: `GET {base}/v2/exchange-rates?currency=USD` answers
 *   `{"data": {"currency": "USD", "rates": {"NGN": "1612.40", "USDT": "0.9998", …}}}`: units per USD
 *   already, as decimal strings.
 * - `kraken`: `GET {base}/0/public/Ticker?pair=USDTZUSD` answers
 *   `{"error": [], "result": {"USDTZUSD": {"c": ["1.00010000", "12.5"], "a": […], "b": […], …}}}`:
 *   the last trade's price (`c[0]`) in US dollars of each asset Kraken pairs with USD; an asset is worth
 *   `1 / price` per USD. A non-empty `error` fails the reading.
 * - `exchangerate`: ExchangeRate-API's open access endpoint, `GET {base}/v6/latest/USD`, answers
 *   `{"result": "success", "base_code": "USD", "rates": {"NGN": 1612.4, …}, "time_next_update_unix": …}`:
 *   units per USD of every ISO currency, updated once a day. Its terms ask that a reading be kept until
 *   the next update it announces rather than asked again (it rate-limits with HTTP 429 otherwise), so
 *   the reading is reused until then (at most a day) and still counts as what the provider says now.
 * - `static`: the table (./table.ts), already per USD.
 *
 * Numbers are read digit for digit from the JSON text (CoinGecko answers JSON numbers, Coinbase
 * strings), never through a binary float. A code left out, or answered with zero, a negative,
 * something that is not a number, or a value no currency or asset has (outside 10^-12 to 10^12 per US
 * dollar: `1e30`, `1e-30`, `1e1000`) is a problem of that code alone, and its value goes no further;
 * an answer that is not the documented shape, an HTTP error, a redirect (never followed: the request,
 * and an API key with it, goes to the configured origin only), a body over 1 MiB or no answer within
 * the timeout fails the whole reading. Nothing of a body is ever kept in an error.
 */
import { compareRatio, decimalFromLiteral, divideRatio, medianRatio, ratioOf, type Ratio } from '../../../core/money.js';
import { COINGECKO_CURRENCIES, KRAKEN_PAIRS, type RateSettings, type RateSourceName } from './settings.js';

/** Why one code of an answer was not believed. */
export type ValueProblem = 'missing' | 'not_a_number' | 'zero' | 'negative' | 'out_of_range';

/** The least and most units of anything one US dollar may buy: a value outside is absurd, whoever says it. */
export const PER_USD_BOUNDS: readonly [Ratio, Ratio] = [
  { num: 1n, den: 10n ** 12n },
  { num: 10n ** 12n, den: 1n },
];

/** `value` (units per USD) if it lies within `PER_USD_BOUNDS`, else `'out_of_range'`. */
export function checkPerUsd(value: Ratio): Ratio | 'out_of_range' {
  return compareRatio(value, PER_USD_BOUNDS[0]) < 0 || compareRatio(value, PER_USD_BOUNDS[1]) > 0 ? 'out_of_range' : value;
}

/** What one source said: units per USD of the codes it answered sensibly, and what was wrong with the others. */
export interface SourceReading {
  values: Map<string, Ratio>;
  problems: Map<string, ValueProblem>;
}

/** Why a whole reading failed. */
export type SourceFailure = 'timeout' | 'unreachable' | 'http_status' | 'redirect' | 'not_json' | 'unexpected_shape' | 'too_large';

/** A reading that failed as a whole; its message never holds the body. */
export class RateSourceError extends Error {
  constructor(
    readonly reason: SourceFailure,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'RateSourceError';
  }
}

/** What a reading is asked for: the assets and the fiat currencies, as codes (`USDT`, `NGN`). */
export interface WantedCodes {
  assets: readonly string[];
  currencies: readonly string[];
}

/** One source of rates. */
export interface RateSource {
  name: RateSourceName;
  /** Fetches what the source says now (`now`, the book's clock in ms, decides whether a kept reading still holds). */
  read(wanted: WantedCodes, signal: AbortSignal, now?: number): Promise<SourceReading>;
  /** A source that needs no network (the table) answers at once, and for good: its values never go stale. */
  readNow?(wanted: WantedCodes): SourceReading;
}

const MAX_BODY = 1024 * 1024;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * `JSON.parse` with every number kept as the string it was written as (`1612.40` stays `"1612.40"`),
 * so that no rate passes through a binary float. Throws a `SyntaxError` on malformed JSON.
 */
export function parseJsonExact(text: string): unknown {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 34 /* " */) {
      // Skip the string whole, escapes included: digits inside it are text.
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 /* \ */ ? 2 : 1;
      i = end;
    } else if (char === 45 /* - */ || (char >= 48 && char <= 57)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (!match) continue;
      out += `${text.slice(from, i)}"${match[0]}"`;
      i += match[0].length - 1;
      from = i + 1;
    }
  }
  return JSON.parse(out + text.slice(from));
}

/** A rate as a source wrote it (a number kept as its text, or a string) as a positive exact ratio, or what is wrong with it. */
export function readRateValue(value: unknown): Ratio | ValueProblem {
  if (value === undefined || value === null) return 'missing';
  if (typeof value !== 'string') return 'not_a_number';
  const decimal = decimalFromLiteral(value);
  if (decimal === null) return 'not_a_number';
  if (decimal.startsWith('-')) return 'negative';
  if (/^0(\.0*)?$/.test(decimal)) return 'zero';
  // The bounds are each other's inverse, so they hold whether the value is a price or units per USD.
  // No rate needs 80 characters: a longer one is refused before it costs a bigint of that many digits.
  if (decimal.length > 80) return 'out_of_range';
  return checkPerUsd(ratioOf(decimal));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * GETs `url` as JSON within the signal's time, reading at most 1 MiB. A redirect is not followed: it
 * fails the reading (the request and its headers, an API key among them, go to `url`'s origin only).
 */
async function getJson(name: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal, redirect: 'manual' });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new RateSourceError('timeout', `${name} did not answer in time`);
    if ((error as Error).name === 'AbortError') throw error;
    throw new RateSourceError('unreachable', `${name} could not be reached`);
  }
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel().catch(() => {});
    throw new RateSourceError('redirect', `${name} answered a redirect (HTTP ${response.status}), not followed`, response.status);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new RateSourceError('http_status', `${name} answered HTTP ${response.status}`, response.status);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    for (let part = await reader?.read(); part && !part.done; part = await reader!.read()) {
      size += part.value.byteLength;
      if (size > MAX_BODY) throw new RateSourceError('too_large', `${name} answered more than 1 MiB`);
      chunks.push(part.value);
    }
  } catch (error) {
    await reader?.cancel().catch(() => {});
    if (error instanceof RateSourceError) throw error;
    if ((error as Error).name === 'TimeoutError') throw new RateSourceError('timeout', `${name} did not answer in time`);
    if ((error as Error).name === 'AbortError') throw error;
    throw new RateSourceError('unreachable', `${name} broke off its answer`);
  }
  try {
    return parseJsonExact(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RateSourceError('not_json', `${name} answered something that is not JSON`);
  }
}

/** CoinGecko's `/api/v3/simple/price` (see the module comment). */
export function coingeckoSource(settings: Pick<RateSettings, 'coingeckoUrl' | 'coingeckoIds' | 'coingeckoKey'>): RateSource {
  const keyHeader = /^https:\/\/pro-api\.coingecko\.com$/.test(settings.coingeckoUrl) ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key';
  return {
    name: 'coingecko',
    async read(wanted, signal) {
      const coins = wanted.assets.filter((asset) => settings.coingeckoIds[asset]).map((asset) => [asset, settings.coingeckoIds[asset]!] as const);
      const currencies = wanted.currencies.filter((code) => code !== 'USD' && COINGECKO_CURRENCIES.has(code));
      const reading: SourceReading = { values: new Map(), problems: new Map() };
      if (coins.length === 0) return reading;
      const query = `ids=${coins.map(([, id]) => encodeURIComponent(id)).join(',')}&vs_currencies=${['usd', ...currencies].map((code) => code.toLowerCase()).join(',')}`;
      const headers: Record<string, string> = settings.coingeckoKey ? { [keyHeader]: settings.coingeckoKey } : {};
      const body = await getJson('coingecko', `${settings.coingeckoUrl}/api/v3/simple/price?${query}`, headers, signal);
      if (!isObject(body)) throw new RateSourceError('unexpected_shape', 'coingecko did not answer an object of coins');
      const crosses = new Map<string, Ratio[]>();
      const crossProblems = new Map<string, ValueProblem>();
      for (const [asset, id] of coins) {
        const prices = body[id];
        const usd = readRateValue(isObject(prices) ? prices.usd : undefined);
        if (typeof usd === 'string') {
          reading.problems.set(asset, usd);
          // Every currency is crossed through this price: what is wrong with it is wrong with them.
          for (const currency of currencies) crossProblems.set(currency, usd === 'missing' ? 'missing' : usd);
          continue;
        }
        reading.values.set(asset, divideRatio({ num: 1n, den: 1n }, usd));
        for (const currency of currencies) {
          const price = readRateValue((prices as Record<string, unknown>)[currency.toLowerCase()]);
          if (typeof price === 'string') crossProblems.set(currency, price);
          else crosses.set(currency, [...(crosses.get(currency) ?? []), divideRatio(price, usd)]);
        }
      }
      for (const currency of currencies) {
        const median = medianRatio(crosses.get(currency) ?? []);
        if (median) reading.values.set(currency, median);
        else reading.problems.set(currency, crossProblems.get(currency) ?? 'missing');
      }
      return reading;
    },
  };
}

/** Coinbase's `/v2/exchange-rates` (see the module comment). */
export function coinbaseSource(settings: Pick<RateSettings, 'coinbaseUrl'>): RateSource {
  return {
    name: 'coinbase',
    async read(wanted, signal) {
      const body = await getJson('coinbase', `${settings.coinbaseUrl}/v2/exchange-rates?currency=USD`, {}, signal);
      const data = isObject(body) ? body.data : undefined;
      if (!isObject(data) || !isObject(data.rates) || String(data.currency).toUpperCase() !== 'USD') {
        throw new RateSourceError('unexpected_shape', 'coinbase did not answer {data: {currency: "USD", rates}}');
      }
      const rates = data.rates;
      const reading: SourceReading = { values: new Map(), problems: new Map() };
      for (const code of [...wanted.assets, ...wanted.currencies]) {
        if (code === 'USD') continue;
        const value = readRateValue(rates[code]);
        if (typeof value === 'string') reading.problems.set(code, value);
        else reading.values.set(code, value);
      }
      return reading;
    },
  };
}

/** Kraken's public ticker `/0/public/Ticker` (see the module comment). */
export function krakenSource(settings: Pick<RateSettings, 'krakenUrl'>): RateSource {
  return {
    name: 'kraken',
    async read(wanted, signal) {
      const pairs = wanted.assets.filter((asset) => KRAKEN_PAIRS[asset]).map((asset) => [asset, KRAKEN_PAIRS[asset]!] as const);
      const reading: SourceReading = { values: new Map(), problems: new Map() };
      if (pairs.length === 0) return reading;
      const body = await getJson('kraken', `${settings.krakenUrl}/0/public/Ticker?pair=${pairs.map(([, pair]) => pair).join(',')}`, {}, signal);
      const result = isObject(body) ? body.result : undefined;
      if (!isObject(body) || !Array.isArray(body.error) || body.error.length > 0 || !isObject(result)) {
        throw new RateSourceError('unexpected_shape', 'kraken did not answer {error: [], result: {PAIR: {c: [price, volume]}}}');
      }
      for (const [asset, pair] of pairs) {
        const ticker = result[pair];
        const last = isObject(ticker) && Array.isArray(ticker.c) ? ticker.c[0] : undefined;
        const price = readRateValue(last);
        if (typeof price === 'string') reading.problems.set(asset, price);
        else reading.values.set(asset, divideRatio({ num: 1n, den: 1n }, price));
      }
      return reading;
    },
  };
}

/** A day: the longest an ExchangeRate-API reading is kept, whatever it announces. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** ExchangeRate-API's open access `/v6/latest/USD` (see the module comment). */
export function exchangerateSource(settings: Pick<RateSettings, 'exchangerateUrl'>): RateSource {
  let kept: { rates: Record<string, unknown>; until: number } | undefined;
  return {
    name: 'exchangerate',
    async read(wanted, signal, now = Date.now()) {
      if (!kept || now >= kept.until) {
        kept = undefined;
        const body = await getJson('exchangerate', `${settings.exchangerateUrl}/v6/latest/USD`, {}, signal);
        if (!isObject(body) || body.result !== 'success' || body.base_code !== 'USD' || !isObject(body.rates)) {
          throw new RateSourceError('unexpected_shape', 'exchangerate did not answer {result: "success", base_code: "USD", rates}');
        }
        const next = Number(body.time_next_update_unix) * 1000;
        kept = { rates: body.rates, until: Number.isFinite(next) ? Math.min(next, now + DAY_MS) : now };
      }
      const reading: SourceReading = { values: new Map(), problems: new Map() };
      for (const code of wanted.currencies) {
        if (code === 'USD') continue;
        const value = readRateValue(kept.rates[code]);
        if (typeof value === 'string') reading.problems.set(code, value);
        else reading.values.set(code, value);
      }
      return reading;
    },
  };
}

/** The table: units per USD as configured, read without a network. */
export function staticSource(table: Readonly<Record<string, string>>): RateSource {
  const readNow = (wanted: WantedCodes): SourceReading => {
    const reading: SourceReading = { values: new Map(), problems: new Map() };
    for (const code of [...wanted.assets, ...wanted.currencies]) {
      const value = table[code];
      if (value === undefined) reading.problems.set(code, 'missing');
      else reading.values.set(code, ratioOf(value));
    }
    return reading;
  };
  return { name: 'static', readNow, read: async (wanted) => readNow(wanted) };
}

/** The sources the settings name, in their order. */
export function createSources(settings: RateSettings): RateSource[] {
  const make: Record<RateSourceName, () => RateSource> = {
    coingecko: () => coingeckoSource(settings),
    coinbase: () => coinbaseSource(settings),
    kraken: () => krakenSource(settings),
    exchangerate: () => exchangerateSource(settings),
    static: () => staticSource(settings.staticTable),
  };
  return settings.sources.map((name) => make[name]());
}
