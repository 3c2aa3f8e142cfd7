/**
 * Money as decimal strings. Amounts cross the wire and sit in the database as exact decimals;
 * arithmetic here goes through scaled bigints so that no amount is ever a binary float.
 * Isomorphic: no DOM, no Node.
 */

/** ISO 4217 minor-unit digits of the fiat currencies a link may be priced in. */
export const FIAT_DIGITS: Readonly<Record<string, number>> = {
  NGN: 2, USD: 2, EUR: 2, GBP: 2, GHS: 2, AUD: 2, JPY: 0, KES: 2, ZAR: 2, CAD: 2, CHF: 2,
  EGP: 2, XOF: 0, XAF: 0, RWF: 0, UGX: 0, TZS: 2, INR: 2, CNY: 2, BRL: 2, MXN: 2, AED: 2,
  SGD: 2, NZD: 2, SEK: 2, NOK: 2, DKK: 2, PLN: 2, KRW: 0, HKD: 2, MAD: 2, KWD: 3, BHD: 3,
};

/** Decimal digits of the crypto assets the service settles in. */
export const ASSET_DIGITS: Readonly<Record<string, number>> = { USDT: 6, CNGN: 6 };

/** The assets a customer can pay in and a merchant can withdraw. */
export const ASSET_IDS = ['USDT', 'CNGN'] as const;
export type AssetId = (typeof ASSET_IDS)[number];

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** True when `value` is a plain non-negative decimal such as `12`, `12.5` or `0.000001`. */
export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

/** Number of digits after the decimal point of a decimal string. */
export function fractionDigits(value: string): number {
  const match = DECIMAL.exec(value);
  return match?.[2]?.length ?? 0;
}

/**
 * Turns a number or string from a request into a canonical decimal string, or `null` when it
 * is not a finite non-negative decimal. Numbers are read through their shortest round-trip
 * representation, so `10.1` becomes `"10.1"` and never `"10.0999…"`.
 */
export function toDecimalString(value: unknown): string | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    text = String(value);
    if (/e/i.test(text)) text = value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Scales a decimal string to an integer count of 10^-digits units. Extra digits are an error. */
export function toUnits(value: string, digits: number): bigint {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`Not a decimal amount: ${value}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) throw new RangeError(`${value} has more than ${digits} decimals`);
  return BigInt(match[1]! + fraction.padEnd(digits, '0'));
}

/** The inverse of `toUnits`: always prints exactly `digits` decimals. */
export function fromUnits(units: bigint, digits: number): string {
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = digits > 0 ? `.${text.slice(text.length - digits)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** Formats a decimal string with exactly the currency's digits (`"5"` → `"5.00"` for USD). */
export function formatFixed(value: string, digits: number): string {
  return fromUnits(toUnits(roundDown(value, digits), digits), digits);
}

/** Drops digits past `digits` (toward zero). */
export function roundDown(value: string, digits: number): string {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`Not a decimal amount: ${value}`);
  const fraction = (match[2] ?? '').slice(0, digits);
  return fraction ? `${match[1]}.${fraction}` : match[1]!;
}

/** Compares two decimal strings: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const digits = Math.max(fractionDigits(a), fractionDigits(b));
  const diff = toUnits(a, digits) - toUnits(b, digits);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

/** Minor digits of a fiat currency; unknown codes get 2. */
export function fiatDigits(currency: string): number {
  return FIAT_DIGITS[currency] ?? 2;
}
