/**
 * Fiat → crypto rates: a static sandbox table, overridable by configuration.
 *
 * The table says how many units of each currency or asset one US dollar buys. A quote of
 * `fiatAmount` in `fiat` for `asset` is `fiatAmount × perUsd[asset] / perUsd[fiat]`, computed
 * exactly on bigints and rounded UP to the asset's 6 decimals (the merchant never receives less
 * than the price). Override entries with `PAYLINK_RATES`, a JSON object of the same shape, e.g.
 * `PAYLINK_RATES='{"NGN":"1600","CNGN":"1600"}'`, or with the `rates` option of `startService`.
 * cNGN is a naira stablecoin, so CNGN and NGN default to the same figure.
 */
import { ASSET_DIGITS, fiatDigits, fromUnits, isDecimalString, toDecimalString, toUnits } from '../../../core/money.js';

/** Units of each currency or asset per 1 USD (decimal strings). Sandbox figures, not market data. */
export const SANDBOX_RATES_PER_USD: Readonly<Record<string, string>> = {
  USDT: '1',
  CNGN: '1550',
  USD: '1',
  NGN: '1550',
  EUR: '0.92',
  GBP: '0.79',
  GHS: '15.5',
  AUD: '1.52',
  JPY: '150',
  KES: '129',
  ZAR: '18.5',
  CAD: '1.37',
  CHF: '0.88',
  EGP: '48.5',
  XOF: '605',
  XAF: '605',
  RWF: '1350',
  UGX: '3750',
  TZS: '2650',
  INR: '83.5',
  CNY: '7.25',
  BRL: '5.4',
  MXN: '17.8',
  AED: '3.6725',
  SGD: '1.35',
  NZD: '1.66',
  SEK: '10.6',
  NOK: '10.8',
  DKK: '6.9',
  PLN: '3.95',
  KRW: '1380',
  HKD: '7.8',
  MAD: '10',
  KWD: '0.307',
  BHD: '0.376',
};

/** Converts amounts between currencies and assets. */
export interface RateTable {
  /** Units of `code` per USD, or undefined when the table has no rate for it. */
  perUsd(code: string): string | undefined;
}

/** The sandbox table with `overrides` (then env `PAYLINK_RATES`) laid over it. Throws on a malformed override. */
export function createRateTable(overrides?: Record<string, string | number>): RateTable {
  const table: Record<string, string> = { ...SANDBOX_RATES_PER_USD };
  const apply = (source: Record<string, unknown>, origin: string) => {
    for (const [code, value] of Object.entries(source)) {
      const rate = toDecimalString(value);
      if (rate === null || !isDecimalString(rate) || /^0(\.0*)?$/.test(rate))
        throw new Error(`${origin}: the rate of ${code} must be a positive decimal, got ${JSON.stringify(value)}`);
      table[code.toUpperCase()] = rate;
    }
  };
  const env = process.env.PAYLINK_RATES;
  if (env) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env);
    } catch {
      throw new Error('PAYLINK_RATES must be a JSON object such as {"NGN":"1600"}');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('PAYLINK_RATES must be a JSON object such as {"NGN":"1600"}');
    apply(parsed as Record<string, unknown>, 'PAYLINK_RATES');
  }
  if (overrides) apply(overrides, 'rates');
  return { perUsd: (code) => table[code.toUpperCase()] };
}

/** A positive decimal as an exact fraction `num / den`. */
function fraction(value: string): { num: bigint; den: bigint } {
  const digits = value.split('.')[1]?.length ?? 0;
  return { num: toUnits(value, digits), den: 10n ** BigInt(digits) };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * Converts `amount` of `from` into `to`, rounding UP to `digits` decimals. Returns null when the
 * table lacks either rate.
 */
export function convert(rates: RateTable, amount: string, from: string, to: string, digits: number): string | null {
  const fromRate = rates.perUsd(from);
  const toRate = rates.perUsd(to);
  if (fromRate === undefined || toRate === undefined) return null;
  const a = fraction(amount);
  const f = fraction(fromRate);
  const t = fraction(toRate);
  // amount × toRate / fromRate, scaled by 10^digits, rounded up.
  const num = a.num * t.num * f.den * 10n ** BigInt(digits);
  const den = a.den * t.den * f.num;
  return fromUnits(ceilDiv(num, den), digits);
}

/** The crypto quote of a fiat amount: rounded up to the asset's decimals. */
export function quoteCrypto(rates: RateTable, fiatAmount: string, fiatCurrency: string, assetId: string): string | null {
  return convert(rates, fiatAmount, fiatCurrency, assetId, ASSET_DIGITS[assetId] ?? 6);
}

/** A fiat amount expressed in another fiat currency, rounded up to that currency's minor digits. */
export function convertFiat(rates: RateTable, amount: string, from: string, to: string): string | null {
  if (from === to) return fromUnits(toUnits(amount, fiatDigits(to)), fiatDigits(to));
  return convert(rates, amount, from, to, fiatDigits(to));
}

/** Compares `a` of currency `ca` with `b` of currency `cb` exactly: -1, 0 or 1. */
export function compareAcross(rates: RateTable, a: string, ca: string, b: string, cb: string): number {
  const ra = rates.perUsd(ca);
  const rb = rates.perUsd(cb);
  if (ra === undefined || rb === undefined) throw new RangeError(`No rate for ${ra === undefined ? ca : cb}`);
  // a / ra  vs  b / rb   ⇔   a × rb  vs  b × ra
  const fa = fraction(a);
  const fb = fraction(b);
  const fra = fraction(ra);
  const frb = fraction(rb);
  const left = fa.num * frb.num * fb.den * fra.den;
  const right = fb.num * fra.num * fa.den * frb.den;
  return left < right ? -1 : left > right ? 1 : 0;
}
