/**
 * The `static` rate source: a fixed table, the sandbox's default. Its figures are made up for the
 * sandbox, not market data: a real chain quotes with it only when `PAYLINK_RATES_SOURCES` says `static`.
 *
 * The table says how many units of each currency or asset one US dollar buys. Entries are overridden
 * with `PAYLINK_RATES`, a JSON object of the same shape (`PAYLINK_RATES='{"NGN":"1600","CNGN":"1600"}'`),
 * and then with the `rates` option of `startService`. cNGN is a naira stablecoin, so CNGN and NGN
 * default to the same figure.
 */
import { isDecimalString, toDecimalString } from '../../../core/money.js';
import type { Env } from '../../limits/options.js';

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

/** Thrown for a malformed `PAYLINK_RATES` or `rates` override. */
export class RateTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RateTableError';
  }
}

/**
 * The sandbox table with env `PAYLINK_RATES`, then `overrides`, laid over it (codes upper-cased), as
 * units per USD. Throws a `RateTableError` on a malformed override.
 */
export function staticRateTable(overrides?: Record<string, string | number>, env: Env = process.env): Record<string, string> {
  const table: Record<string, string> = { ...SANDBOX_RATES_PER_USD };
  const apply = (source: Record<string, unknown>, origin: string) => {
    for (const [code, value] of Object.entries(source)) {
      const rate = toDecimalString(value);
      if (rate === null || !isDecimalString(rate) || /^0(\.0*)?$/.test(rate))
        throw new RateTableError(`${origin}: the rate of ${code} must be a positive decimal, got ${JSON.stringify(value)}`);
      table[code.toUpperCase()] = rate;
    }
  };
  const text = env.PAYLINK_RATES;
  if (text) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RateTableError('PAYLINK_RATES must be a JSON object such as {"NGN":"1600"}');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new RateTableError('PAYLINK_RATES must be a JSON object such as {"NGN":"1600"}');
    apply(parsed as Record<string, unknown>, 'PAYLINK_RATES');
  }
  if (overrides) apply(overrides, 'rates');
  return table;
}
