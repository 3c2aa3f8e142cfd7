/**
 * Where prices come from, as the operator says it: `PAYLINK_RATES_*` (options of `startService` win).
 *
 * | env | meaning |
 * |---|---|
 * | `PAYLINK_RATES_SOURCES` | comma list of `coingecko`, `coinbase`, `static`. Default `static`; `paylink serve --chain evm` refuses to start without it |
 * | `PAYLINK_RATES_COINGECKO_URL`, `PAYLINK_RATES_COINBASE_URL` | each source's base URL (default its public API) |
 * | `PAYLINK_RATES_REFRESH_S` | how often rates are fetched (default 60) |
 * | `PAYLINK_RATES_MAX_AGE_S` | a rate older than this is not quoted (default 600) |
 * | `PAYLINK_RATES_PEGS` | `CNGN=NGN,…`: an asset priced at par with a currency when no source rates it (default none) |
 * | `PAYLINK_RATES_TIMEOUT_S` | how long one source may take to answer (default 10) |
 * | `PAYLINK_RATES_CURRENCIES` | the fiat currencies quoted and watched by `/readyz` (default: every currency a link may be priced in that a chosen source rates) |
 * | `PAYLINK_RATES_COINGECKO_IDS` | CoinGecko's coin id of each asset (default `USDT=tether`: CoinGecko lists no cNGN, so pegs price it) |
 * | `PAYLINK_RATES_COINGECKO_KEY` | a CoinGecko API key, sent as `x-cg-demo-api-key` (`x-cg-pro-api-key` to pro-api.coingecko.com) |
 */
import { ASSET_IDS, FIAT_DIGITS } from '../../../core/money.js';
import type { Env } from '../../limits/options.js';
import { RateTableError, staticRateTable } from './table.js';

/** The rate sources there are. */
export const RATE_SOURCES = ['coingecko', 'coinbase', 'static'] as const;
/** The name of a rate source. */
export type RateSourceName = (typeof RATE_SOURCES)[number];

/** The fiat currencies CoinGecko quotes against (its documented `supported_vs_currencies`, those a link may use). */
export const COINGECKO_CURRENCIES: ReadonlySet<string> = new Set(
  'USD NGN EUR GBP AUD JPY ZAR CAD CHF INR CNY BRL MXN AED SGD NZD SEK NOK DKK PLN KRW HKD KWD BHD'.split(' '),
);

/** Where prices come from and how long they hold, resolved. */
export interface RateSettings {
  sources: RateSourceName[];
  /** False when nobody chose the sources (the `static` default). */
  explicit: boolean;
  coingeckoUrl: string;
  coinbaseUrl: string;
  /** CoinGecko's coin id of each asset that has one. */
  coingeckoIds: Record<string, string>;
  coingeckoKey: string | undefined;
  refreshMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  /** Asset → the currency it is priced at par with when no source rates it. */
  pegs: Record<string, string>;
  /** The fiat currencies quoted: fetched, and watched by readiness. */
  currencies: string[];
  /** The `static` source's table (units per USD), overrides applied. */
  staticTable: Record<string, string>;
  /** Settings that are valid but probably not what was meant, in words. */
  warnings: string[];
}

/** The settings as `startService` takes them; each wins over its environment variable. */
export interface RateOptions {
  sources?: RateSourceName[] | undefined;
  coingeckoUrl?: string | undefined;
  coinbaseUrl?: string | undefined;
  coingeckoIds?: Record<string, string> | undefined;
  coingeckoKey?: string | undefined;
  /** Seconds; fractions allowed (tests refresh fast). */
  refreshS?: number | undefined;
  maxAgeS?: number | undefined;
  timeoutS?: number | undefined;
  pegs?: Record<string, string> | undefined;
  currencies?: string[] | undefined;
}

/** Settings that can't be used, one sentence each. */
export class RateConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'RateConfigError';
  }
}

/** Why a real chain needs `PAYLINK_RATES_SOURCES`: what a customer pays depends on it, so it is never implied. */
export const SOURCES_REQUIRED = `PAYLINK_RATES_SOURCES is not set: on a real chain the price a customer pays comes from it, so it is never implied.
  coingecko  CoinGecko's simple price API (PAYLINK_RATES_COINGECKO_URL)
  coinbase   Coinbase's exchange rates (PAYLINK_RATES_COINBASE_URL)
  static     the built-in table: fixed figures, not market data (PAYLINK_RATES overrides entries); set PAYLINK_RATES_SOURCES=static to quote with it on purpose
  Several are combined by their median, e.g. PAYLINK_RATES_SOURCES=coingecko,coinbase; PAYLINK_RATES_PEGS=CNGN=NGN prices cNGN at par with the naira.`;

const DEFAULT_URLS = { coingecko: 'https://api.coingecko.com', coinbase: 'https://api.coinbase.com' } as const;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * Resolves the rate settings: `options`, then `env`, then the defaults. `requireExplicit` (a real
 * chain started by `paylink serve`) refuses to fall back to `static`. Throws a `RateConfigError`
 * naming every problem.
 */
export function resolveRateSettings(
  options: RateOptions & { overrides?: Record<string, string | number> | undefined } = {},
  env: Env = process.env,
  { requireExplicit = false } = {},
): RateSettings {
  const problems: string[] = [];
  const warnings: string[] = [];
  const text = (name: string) => env[name]?.trim() || undefined;
  const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);

  let sources = options.sources;
  if (!sources) {
    const named = list(text('PAYLINK_RATES_SOURCES')).map((name) => name.toLowerCase());
    const unknown = named.filter((name) => !(RATE_SOURCES as readonly string[]).includes(name));
    if (unknown.length) problems.push(`PAYLINK_RATES_SOURCES: unknown source ${unknown.join(', ')} (expected ${RATE_SOURCES.join(', ')})`);
    sources = [...new Set(named)] as RateSourceName[];
  }
  const explicit = sources.length > 0;
  if (!explicit) {
    if (requireExplicit) problems.push(SOURCES_REQUIRED);
    sources = ['static'];
  }

  const seconds = (name: string, option: number | undefined, fallback: number): number => {
    if (option !== undefined) {
      if (!(option > 0)) throw new RangeError(`${name} must be a positive number of seconds`);
      return option;
    }
    const value = text(name);
    if (value === undefined) return fallback;
    if (!/^\d+(\.\d+)?$/.test(value) || !(Number(value) > 0)) {
      problems.push(`${name} must be a positive number of seconds; got ${value}`);
      return fallback;
    }
    return Number(value);
  };
  const refreshS = seconds('PAYLINK_RATES_REFRESH_S', options.refreshS, 60);
  const maxAgeS = seconds('PAYLINK_RATES_MAX_AGE_S', options.maxAgeS, 600);
  const timeoutS = seconds('PAYLINK_RATES_TIMEOUT_S', options.timeoutS, 10);
  if (maxAgeS < refreshS) {
    problems.push(`PAYLINK_RATES_MAX_AGE_S (${maxAgeS}) must be at least PAYLINK_RATES_REFRESH_S (${refreshS}): every rate would go stale between two fetches`);
  }

  const url = (name: string, option: string | undefined, fallback: string): string => {
    const value = option ?? text(name) ?? fallback;
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
      return parsed.href.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL; got ${value}`);
      return fallback;
    }
  };
  const coingeckoUrl = url('PAYLINK_RATES_COINGECKO_URL', options.coingeckoUrl, DEFAULT_URLS.coingecko);
  const coinbaseUrl = url('PAYLINK_RATES_COINBASE_URL', options.coinbaseUrl, DEFAULT_URLS.coinbase);

  /** `ASSET=VALUE,…` with each asset one the service settles in. */
  const pairs = (name: string, option: Record<string, string> | undefined, fallback: Record<string, string>, valid: (value: string) => boolean, what: string) => {
    if (option) return option;
    const value = text(name);
    if (value === undefined) return fallback;
    const out: Record<string, string> = {};
    for (const entry of list(value)) {
      const [asset = '', target = '', extra] = entry.split('=').map((part) => part.trim());
      const code = asset.toUpperCase();
      if (extra !== undefined || !(ASSET_IDS as readonly string[]).includes(code) || !valid(target)) {
        problems.push(`${name}: "${entry}" must be ASSET=${what} with ASSET one of ${ASSET_IDS.join(', ')}`);
      } else out[code] = target;
    }
    return out;
  };
  const pegs = Object.fromEntries(
    Object.entries(pairs('PAYLINK_RATES_PEGS', options.pegs, {}, (target) => target.toUpperCase() in FIAT_DIGITS, 'CURRENCY (a fiat currency code)')).map(
      ([asset, currency]) => [asset, currency.toUpperCase()],
    ),
  );
  const coingeckoIds = pairs('PAYLINK_RATES_COINGECKO_IDS', options.coingeckoIds, { USDT: 'tether' }, (id) => /^[a-z0-9-]{1,100}$/.test(id), 'ID (CoinGecko’s coin id)');

  let staticTable: Record<string, string> = {};
  try {
    staticTable = staticRateTable(options.overrides, env);
  } catch (error) {
    if (!(error instanceof RateTableError)) throw error;
    problems.push(error.message);
  }
  if (!sources.includes('static') && env.PAYLINK_RATES) warnings.push('PAYLINK_RATES is set but the static source is not in PAYLINK_RATES_SOURCES: it changes nothing');

  const rated = (currency: string) =>
    sources.some((source) => (source === 'coingecko' ? COINGECKO_CURRENCIES.has(currency) : source === 'coinbase' || currency in staticTable));
  let currencies = options.currencies?.map((code) => code.toUpperCase());
  if (!currencies && text('PAYLINK_RATES_CURRENCIES')) {
    currencies = list(text('PAYLINK_RATES_CURRENCIES')).map((code) => code.toUpperCase());
    const unknown = currencies.filter((code) => !(code in FIAT_DIGITS));
    if (unknown.length) problems.push(`PAYLINK_RATES_CURRENCIES: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a currency a link may be priced in`);
  }
  currencies ??= Object.keys(FIAT_DIGITS).filter(rated);
  const unrated = currencies.filter((code) => !rated(code) && CURRENCY.test(code));
  if (unrated.length) warnings.push(`no chosen source rates ${unrated.join(', ')}: sessions priced in ${unrated.length > 1 ? 'them' : 'it'} answer 503 rate_unavailable`);

  if (problems.length) throw new RateConfigError(problems);
  return {
    sources,
    explicit,
    coingeckoUrl,
    coinbaseUrl,
    coingeckoIds,
    coingeckoKey: options.coingeckoKey ?? text('PAYLINK_RATES_COINGECKO_KEY'),
    refreshMs: Math.round(refreshS * 1000),
    maxAgeMs: Math.round(maxAgeS * 1000),
    timeoutMs: Math.round(timeoutS * 1000),
    pegs,
    currencies,
    staticTable,
    warnings,
  };
}

/** What `paylink serve` and the demo say about prices on start: which sources, how fresh, which pegs. */
export function describeRateSettings(settings: RateSettings): string {
  const { sources } = settings;
  const named = sources.map((source) => (source === 'static' ? 'the static table (fixed figures, not market data)' : source));
  const head = sources.length > 1 ? `median of ${named.join(', ')}` : named[0];
  const market = sources.some((source) => source !== 'static');
  const timing = market ? `, fetched every ${settings.refreshMs / 1000} s, not quoted when older than ${settings.maxAgeMs / 1000} s` : '';
  const pegs = Object.entries(settings.pegs).map(([asset, currency]) => `${asset}=${currency}`);
  const lines = [`Prices: ${head}${timing}${pegs.length ? `; at par where no source rates them: ${pegs.join(', ')}` : ''}.`];
  if (!settings.explicit) lines.push('  (the default: PAYLINK_RATES_SOURCES chooses coingecko, coinbase or static)');
  for (const warning of settings.warnings) lines.push(`  Note: ${warning}.`);
  return lines.join('\n');
}
