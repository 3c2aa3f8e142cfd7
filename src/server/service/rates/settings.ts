/**
 * Where prices come from, as the operator says it: `PAYLINK_RATES_*` (options of `startService` win).
 *
 * | env | meaning |
 * |---|---|
 * | `PAYLINK_RATES_SOURCES` | comma list of `coingecko`, `coinbase`, `kraken`, `exchangerate`, `static`. Default `static`; `paylink serve --chain evm` refuses to start without it |
 * | `PAYLINK_RATES_COINGECKO_URL`, `PAYLINK_RATES_COINBASE_URL`, `PAYLINK_RATES_KRAKEN_URL`, `PAYLINK_RATES_EXCHANGERATE_URL` | each source's base URL (default its public API) |
 * | `PAYLINK_RATES_QUORUM` | how many sources must agree for a quote (default 2 on a real chain; on the sandbox 2 when two sources or more are named, else 1; 1 for the static table alone) |
 * | `PAYLINK_RATES_MAX_SPREAD` | how far from their median the agreeing sources may lie (default 2%) |
 * | `PAYLINK_RATES_MAX_MOVE` | a quorum value further than this from the last quoted one is held (default 10%) |
 * | `PAYLINK_RATES_CONFIRM_S` | how long a held move must last to be believed (default 900) |
 * | `PAYLINK_RATES_PEG_TOLERANCE` | how far a pegged asset may stray from its peg and still be quoted (default 3%) |
 * | `PAYLINK_RATES_REFRESH_S` | how often rates are fetched (default 60) |
 * | `PAYLINK_RATES_MAX_AGE_S` | a rate older than this is not quoted (default 600) |
 * | `PAYLINK_RATES_PEGS` | `CNGN=NGN,…`: an asset priced at par with a currency when no source rates it, and not quoted when the sources that rate it put it off its peg (default none) |
 * | `PAYLINK_RATES_TIMEOUT_S` | how long one source may take to answer (default 10) |
 * | `PAYLINK_RATES_CURRENCIES` | the fiat currencies quoted and watched by `/readyz` (default: every currency a link may be priced in that a chosen source rates) |
 * | `PAYLINK_RATES_COINGECKO_IDS` | CoinGecko's coin id of each asset (default `USDT=tether`: CoinGecko lists no cNGN, so pegs price it) |
 * | `PAYLINK_RATES_COINGECKO_KEY` | a CoinGecko API key, sent as `x-cg-demo-api-key` (`x-cg-pro-api-key` to pro-api.coingecko.com) |
 */
import { ASSET_IDS, decimalFromLiteral, FIAT_DIGITS, isDecimalString } from '../../../core/money.js';
import type { Env } from '../../limits/options.js';
import { RateTableError, staticRateTable } from './table.js';

/** The rate sources there are. */
export const RATE_SOURCES = ['coingecko', 'coinbase', 'kraken', 'exchangerate', 'static'] as const;
/** The name of a rate source. */
export type RateSourceName = (typeof RATE_SOURCES)[number];

/** The fiat currencies CoinGecko quotes against (its documented `supported_vs_currencies`, those a link may use). */
export const COINGECKO_CURRENCIES: ReadonlySet<string> = new Set(
  'USD NGN EUR GBP AUD JPY ZAR CAD CHF INR CNY BRL MXN AED SGD NZD SEK NOK DKK PLN KRW HKD KWD BHD'.split(' '),
);

/** The assets Kraken's public ticker prices in US dollars (`USDTZUSD`): its pair name of each. */
export const KRAKEN_PAIRS: Readonly<Record<string, string>> = { USDT: 'USDTZUSD' };

/**
 * Whether `source` can rate `code` at all, as its provider documents it: CoinGecko the coins it has an id
 * for and its `vs_currencies`; Coinbase every currency and listed coin; Kraken the assets of
 * `KRAKEN_PAIRS`; ExchangeRate-API every ISO currency (no crypto asset); the table what it holds.
 */
export function sourceRates(source: RateSourceName, code: string, settings: Pick<RateSettings, 'coingeckoIds' | 'staticTable'>): boolean {
  const asset = (ASSET_IDS as readonly string[]).includes(code);
  switch (source) {
    case 'coingecko':
      return asset ? code in settings.coingeckoIds : COINGECKO_CURRENCIES.has(code);
    case 'coinbase':
      return true;
    case 'kraken':
      return code in KRAKEN_PAIRS;
    case 'exchangerate':
      return !asset;
    case 'static':
      return code in settings.staticTable;
  }
}
/** Where prices come from and how long they hold, resolved. */
export interface RateSettings {
  sources: RateSourceName[];
  /** False when nobody chose the sources (the `static` default). */
  explicit: boolean;
  coingeckoUrl: string;
  coinbaseUrl: string;
  krakenUrl: string;
  exchangerateUrl: string;
  /** How many sources must agree (within `maxSpread` of their median) for a code to be quoted. */
  quorum: number;
  /** How far from the agreeing sources' median each may lie: a fraction as a decimal string (`0.02`). */
  maxSpread: string;
  /** How far a quorum value may move from the last quoted one before it is held (`0.1`). */
  maxMove: string;
  /** How long a held move must last before it is believed without an operator. */
  confirmMs: number;
  /** How far a pegged asset may stray from its peg and still be quoted (`0.03`). */
  pegTolerance: string;
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
  krakenUrl?: string | undefined;
  exchangerateUrl?: string | undefined;
  /** Sources that must agree; see `RateSettings.quorum` for the default. */
  quorum?: number | undefined;
  /** Fractions (`0.02` is 2%). */
  maxSpread?: number | undefined;
  maxMove?: number | undefined;
  pegTolerance?: number | undefined;
  /** Seconds a held move must last to be believed (fractions allowed). */
  confirmS?: number | undefined;
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
  coingecko     CoinGecko's simple price API (PAYLINK_RATES_COINGECKO_URL)
  coinbase      Coinbase's exchange rates (PAYLINK_RATES_COINBASE_URL)
  kraken        Kraken's public ticker: USDT in US dollars (PAYLINK_RATES_KRAKEN_URL)
  exchangerate  ExchangeRate-API's open access rates: fiat currencies, once a day (PAYLINK_RATES_EXCHANGERATE_URL)
  static        the built-in table: fixed figures, not market data (PAYLINK_RATES overrides entries); set PAYLINK_RATES_SOURCES=static to quote with it on purpose
  A price needs PAYLINK_RATES_QUORUM of them to agree (2 by default on a real chain), e.g. PAYLINK_RATES_SOURCES=coingecko,coinbase,kraken,exchangerate
  (three for USDT and three for the naira); PAYLINK_RATES_PEGS=CNGN=NGN prices cNGN at par with the naira.`;

const DEFAULT_URLS = {
  coingecko: 'https://api.coingecko.com',
  coinbase: 'https://api.coinbase.com',
  kraken: 'https://api.kraken.com',
  exchangerate: 'https://open.er-api.com',
} as const;
const CURRENCY = /^[A-Z]{3}$/;

/**
 * Resolves the rate settings: `options`, then `env`, then the defaults. `requireExplicit` (a real
 * chain started by `paylink serve`) refuses to fall back to `static`. Throws a `RateConfigError`
 * naming every problem.
 */
export function resolveRateSettings(
  options: RateOptions & { overrides?: Record<string, string | number> | undefined } = {},
  env: Env = process.env,
  { requireExplicit = false, realMoney = false } = {},
): RateSettings {
  const problems: string[] = [];
  const warnings: string[] = [];
  const text = (name: string) => env[name]?.trim() || undefined;
  const list = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

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
    if (!isDecimalString(value) || !(Number(value) > 0)) {
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
  const krakenUrl = url('PAYLINK_RATES_KRAKEN_URL', options.krakenUrl, DEFAULT_URLS.kraken);
  const exchangerateUrl = url('PAYLINK_RATES_EXCHANGERATE_URL', options.exchangerateUrl, DEFAULT_URLS.exchangerate);

  /** A fraction: `2%` or `0.02` (a bare number of 1 or more is refused: it would read as 100% or more). */
  const fraction = (name: string, option: number | undefined, fallback: string): string => {
    if (option !== undefined) {
      if (!(option > 0 && option < 1)) throw new RangeError(`${name} must be a fraction between 0 and 1`);
      return decimalFromLiteral(String(option)) ?? fallback;
    }
    const value = text(name);
    if (value === undefined) return fallback;
    const percent = /^(.+?)\s*%$/.exec(value)?.[1];
    const decimal =
      percent !== undefined && isDecimalString(percent) ? decimalFromLiteral(`${percent}e-2`) : /^0?\.\d+$/.test(value) ? decimalFromLiteral(value) : null;
    if (decimal === null || /^0(\.0*)?$/.test(decimal) || !/^0\./.test(decimal)) {
      problems.push(`${name} must be a percentage below 100% such as 2% (or a fraction such as 0.02); got ${value}`);
      return fallback;
    }
    return decimal;
  };
  const maxSpread = fraction('PAYLINK_RATES_MAX_SPREAD', options.maxSpread, '0.02');
  const maxMove = fraction('PAYLINK_RATES_MAX_MOVE', options.maxMove, '0.1');
  const pegTolerance = fraction('PAYLINK_RATES_PEG_TOLERANCE', options.pegTolerance, '0.03');
  const confirmS = seconds('PAYLINK_RATES_CONFIRM_S', options.confirmS, 900);

  // A price needs a quorum of sources that agree. The table alone is one fixed figure: nothing to agree on.
  const staticOnly = sources.length === 1 && sources[0] === 'static';
  let quorum: number;
  const quorumText = text('PAYLINK_RATES_QUORUM');
  if (options.quorum !== undefined) {
    if (!Number.isInteger(options.quorum) || options.quorum < 1) throw new RangeError('quorum must be a whole number of sources, at least 1');
    quorum = options.quorum;
  } else if (quorumText !== undefined) {
    quorum = /^\d+$/.test(quorumText) ? Number(quorumText) : 0;
    if (!(quorum >= 1)) problems.push(`PAYLINK_RATES_QUORUM must be a whole number of sources, at least 1; got ${quorumText}`);
  } else if (staticOnly) {
    quorum = 1;
  } else if (realMoney) {
    quorum = 2;
    if (sources.length < 2)
      problems.push(
        `PAYLINK_RATES_SOURCES names one source (${sources.join()}), and on a real chain a price needs PAYLINK_RATES_QUORUM sources that agree (default 2): name more (three are recommended: coingecko,coinbase,kraken,exchangerate prices USDT and the naira from three each), or set PAYLINK_RATES_QUORUM=1 to quote from one source on purpose`,
      );
  } else {
    // The sandbox rehearses what a real chain does when it is given several sources, and takes one alone.
    quorum = Math.min(2, sources.length);
  }
  if (quorum > sources.length && (options.quorum !== undefined || quorumText !== undefined)) {
    problems.push(
      `PAYLINK_RATES_QUORUM (${quorum}) is more than the sources named in PAYLINK_RATES_SOURCES (${sources.length}): no price could ever be quoted`,
    );
  }

  /** `ASSET=VALUE,…` with each asset one the service settles in. */
  const pairs = (
    name: string,
    option: Record<string, string> | undefined,
    fallback: Record<string, string>,
    valid: (value: string) => boolean,
    what: string,
  ) => {
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
  const coingeckoIds = pairs(
    'PAYLINK_RATES_COINGECKO_IDS',
    options.coingeckoIds,
    { USDT: 'tether' },
    (id) => /^[a-z0-9-]{1,100}$/.test(id),
    'ID (CoinGecko’s coin id)',
  );

  let staticTable: Record<string, string> = {};
  try {
    staticTable = staticRateTable(options.overrides, env);
  } catch (error) {
    if (!(error instanceof RateTableError)) throw error;
    problems.push(error.message);
  }
  if (!sources.includes('static') && env.PAYLINK_RATES)
    warnings.push('PAYLINK_RATES is set but the static source is not in PAYLINK_RATES_SOURCES: it changes nothing');

  // A currency is quoted when enough of the chosen sources rate it to make a quorum.
  const rated = (currency: string) =>
    currency === 'USD' || sources.filter((source) => sourceRates(source, currency, { coingeckoIds, staticTable })).length >= Math.max(1, quorum);
  let currencies = options.currencies?.map((code) => code.toUpperCase());
  if (!currencies && text('PAYLINK_RATES_CURRENCIES')) {
    currencies = list(text('PAYLINK_RATES_CURRENCIES')).map((code) => code.toUpperCase());
    const unknown = currencies.filter((code) => !(code in FIAT_DIGITS));
    if (unknown.length)
      problems.push(`PAYLINK_RATES_CURRENCIES: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a currency a link may be priced in`);
  }
  currencies ??= Object.keys(FIAT_DIGITS).filter(rated);
  const unrated = currencies.filter((code) => !rated(code) && CURRENCY.test(code));
  if (unrated.length)
    warnings.push(
      `${quorum > 1 ? `fewer than ${quorum} of the chosen sources rate` : 'no chosen source rates'} ${unrated.join(', ')}: sessions priced in ${unrated.length > 1 ? 'them' : 'it'} answer 503 rate_unavailable`,
    );
  const keyOverPlainHttp = /^http:\/\/(?!127\.|localhost[:/]|\[::1\])/.test(`${coingeckoUrl}/`);
  if (keyOverPlainHttp && (options.coingeckoKey ?? text('PAYLINK_RATES_COINGECKO_KEY')))
    warnings.push('PAYLINK_RATES_COINGECKO_KEY is sent over plain http to PAYLINK_RATES_COINGECKO_URL: anyone on the way can read it');

  if (problems.length) throw new RateConfigError(problems);
  return {
    sources,
    explicit,
    coingeckoUrl,
    coinbaseUrl,
    krakenUrl,
    exchangerateUrl,
    quorum,
    maxSpread,
    maxMove,
    confirmMs: Math.round(confirmS * 1000),
    pegTolerance,
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
  const pct = (fraction: string) => `${Number((Number(fraction) * 100).toPrecision(6))}%`;
  const head =
    sources.length > 1 ? `${settings.quorum} of ${named.join(', ')} must agree within ${pct(settings.maxSpread)} (their median is quoted)` : named[0];
  const market = sources.some((source) => source !== 'static');
  const timing = market
    ? `, fetched every ${settings.refreshMs / 1000} s, not quoted when older than ${settings.maxAgeMs / 1000} s; a move over ${pct(settings.maxMove)} is held ${settings.confirmMs / 1000} s or until "paylink rates accept"`
    : '';
  const pegs = Object.entries(settings.pegs).map(([asset, currency]) => `${asset}=${currency}`);
  const lines = [`Prices: ${head}${timing}${pegs.length ? `; at par where no source rates them: ${pegs.join(', ')}` : ''}.`];
  if (!settings.explicit) lines.push(`  (the default: PAYLINK_RATES_SOURCES chooses among ${RATE_SOURCES.join(', ')})`);
  for (const warning of settings.warnings) lines.push(`  Note: ${warning}.`);
  return lines.join('\n');
}
