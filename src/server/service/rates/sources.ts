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
 * - `static`: the table (./table.ts), already per USD.
 *
 * Numbers are read digit for digit from the JSON text (CoinGecko answers JSON numbers, Coinbase
 * strings), never through a binary float. A code left out, or answered with zero, a negative or
 * something that is not a number, is a problem of that code alone; an answer that is not the
 * documented shape, an HTTP error, a body over 1 MiB or no answer within the timeout fails the
 * whole reading. Nothing of a body is ever kept in an error.
 */
import { decimalFromLiteral, divideRatio, medianRatio, ratioOf, type Ratio } from '../../../core/money.js';
import { COINGECKO_CURRENCIES, type RateSettings, type RateSourceName } from './settings.js';

/** Why one code of an answer was not believed. */
export type ValueProblem = 'missing' | 'not_a_number' | 'zero' | 'negative';

/** What one source said: units per USD of the codes it answered sensibly, and what was wrong with the others. */
export interface SourceReading {
  values: Map<string, Ratio>;
  problems: Map<string, ValueProblem>;
}

/** Why a whole reading failed. */
export type SourceFailure = 'timeout' | 'unreachable' | 'http_status' | 'not_json' | 'unexpected_shape' | 'too_large';

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
  /** Fetches what the source says now. */
  read(wanted: WantedCodes, signal: AbortSignal): Promise<SourceReading>;
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
  return ratioOf(decimal);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** GETs `url` as JSON within the signal's time, reading at most 1 MiB. */
async function getJson(name: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new RateSourceError('timeout', `${name} did not answer in time`);
    if ((error as Error).name === 'AbortError') throw error;
    throw new RateSourceError('unreachable', `${name} could not be reached`);
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
  return settings.sources.map((name) =>
    name === 'coingecko' ? coingeckoSource(settings) : name === 'coinbase' ? coinbaseSource(settings) : staticSource(settings.staticTable),
  );
}
