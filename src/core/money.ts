/**
 * Money as decimal strings. Amounts cross the wire and sit in the database as exact decimals;
 * arithmetic here goes through scaled bigints so that no amount is ever a binary float.
 * Isomorphic: no DOM, no Node.
 */
import { CRYPTO_DIGITS, DECIMAL_PATTERN as DECIMAL } from './rules/limits.js';

/** ISO 4217 minor-unit digits of the fiat currencies a link may be priced in. */
export const FIAT_DIGITS: Readonly<Record<string, number>> = {
  NGN: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  GHS: 2,
  AUD: 2,
  JPY: 0,
  KES: 2,
  ZAR: 2,
  CAD: 2,
  CHF: 2,
  EGP: 2,
  XOF: 0,
  XAF: 0,
  RWF: 0,
  UGX: 0,
  TZS: 2,
  INR: 2,
  CNY: 2,
  BRL: 2,
  MXN: 2,
  AED: 2,
  SGD: 2,
  NZD: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  KRW: 0,
  HKD: 2,
  MAD: 2,
  KWD: 3,
  BHD: 3,
};

/** Decimal digits of the crypto assets the service settles in: all of the ledger's (`CRYPTO_DIGITS`). */
export const ASSET_DIGITS: Readonly<Record<string, number>> = { USDT: CRYPTO_DIGITS, CNGN: CRYPTO_DIGITS };

/** The assets a customer can pay in and a merchant can withdraw. */
export const ASSET_IDS = ['USDT', 'CNGN'] as const;
export type AssetId = (typeof ASSET_IDS)[number];

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

/** The currency a link is priced in when it names none (and a new link's first choice): the naira. */
export const DEFAULT_CURRENCY = 'NGN';

/** A link's price currency: the first of its `fiatCurrency` codes, or `DEFAULT_CURRENCY`. */
export function priceCurrencyOf(fiatCurrency: readonly string[]): string {
  return fiatCurrency[0] ?? DEFAULT_CURRENCY;
}

/** Minor digits of a fiat currency; unknown codes get 2. */
export function fiatDigits(currency: string): number {
  return FIAT_DIGITS[currency] ?? 2;
}

/**
 * A fiat amount as the API writes it: with exactly its currency's digits, any past them cut
 * (`"5000.000000"`, as the database renders a NUMERIC, is `"5000.00"` in NGN); zero when `value` is no decimal.
 */
export function formatFiat(value: string, currency: string): string {
  return formatFixed(toDecimalString(value) ?? '0', fiatDigits(currency));
}

// ---------------------------------------------------------------------------------------------
// Exact ratios: exchange rates and the conversions made with them

/** An exact positive rational number `num / den` (both positive bigints, not necessarily reduced). */
export interface Ratio {
  num: bigint;
  den: bigint;
}

const EXPONENT_DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A number as it is written (a JSON number token such as `1612.4`, `6.2e-05` or `1E3`, or a decimal
 * string) as a canonical signed decimal string, digit for digit: never through a binary float.
 * `null` when it is not such a number, or its exponent is absurd (beyond ±1000).
 */
export function decimalFromLiteral(text: string): string | null {
  const match = EXPONENT_DECIMAL.exec(text.trim());
  if (!match) return null;
  const exponent = Number(match[4] ?? '0');
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return null;
  const fraction = match[3] ?? '';
  let digits = (match[2]! + fraction).replace(/^0+(?=\d)/, '');
  // The point sits `fraction.length - exponent` digits from the right.
  let point = fraction.length - exponent;
  if (point < 0) {
    digits += '0'.repeat(-point);
    point = 0;
  }
  digits = digits.padStart(point + 1, '0');
  const whole = digits.slice(0, digits.length - point).replace(/^0+(?=\d)/, '');
  const decimals = digits.slice(digits.length - point).replace(/0+$/, '');
  const sign = match[1] === '-' && /[1-9]/.test(whole + decimals) ? '-' : '';
  return `${sign}${whole}${decimals ? `.${decimals}` : ''}`;
}

/** A positive decimal string as an exact ratio. */
export function ratioOf(value: string): Ratio {
  const digits = fractionDigits(value);
  return { num: toUnits(value, digits), den: 10n ** BigInt(digits) };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

function reduced(num: bigint, den: bigint): Ratio {
  const divisor = gcd(num, den);
  return { num: num / divisor, den: den / divisor };
}

/** `a × b`, exactly. */
export function multiplyRatio(a: Ratio, b: Ratio): Ratio {
  return reduced(a.num * b.num, a.den * b.den);
}

/** `a ÷ b`, exactly (`b` positive). */
export function divideRatio(a: Ratio, b: Ratio): Ratio {
  return reduced(a.num * b.den, a.den * b.num);
}

/** The mean of `a` and `b`, exactly (the median of an even count of values). */
export function meanRatio(a: Ratio, b: Ratio): Ratio {
  return reduced(a.num * b.den + b.num * a.den, 2n * a.den * b.den);
}

/** Compares two ratios exactly: -1, 0 or 1. */
export function compareRatio(a: Ratio, b: Ratio): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** True when the larger of `a` and `b` is at least `factor` times the smaller (both positive). */
export function apartByFactor(a: Ratio, b: Ratio, factor: bigint): boolean {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left >= right * factor || right >= left * factor;
}

/** The median of some ratios (the mean of the middle two for an even count); undefined for none. */
export function medianRatio(values: readonly Ratio[]): Ratio | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort(compareRatio);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : meanRatio(sorted[middle - 1]!, sorted[middle]!);
}

/**
 * A positive ratio as a decimal string of `significant` significant digits, or `minDecimals` digits
 * after the point where that is more, cut toward zero (`1/1550` → `0.00064516129032258064516` at 20):
 * the digits a rate is recorded with. Cutting, not rounding up, keeps a price that the exact ratio
 * converts to a whole number of units (1550 NGN at 1550 per USD is 1 USDT) from growing a unit when
 * the quote is rounded up.
 */
export function ratioToDecimal(value: Ratio, significant: number, minDecimals = 0): string {
  // 10^shift × num / den has `significant` or `significant + 1` digits before the point.
  let shift = significant - (value.num.toString().length - value.den.toString().length);
  const exact = (places: number) => (places >= 0 ? (value.num * 10n ** BigInt(places)) / value.den : value.num / (value.den * 10n ** BigInt(-places)));
  let units = exact(shift);
  if (units.toString().length > significant) {
    units /= 10n;
    shift -= 1;
  }
  if (shift < minDecimals) units = exact((shift = minDecimals));
  const text = shift >= 0 ? fromUnits(units, shift) : `${units}${'0'.repeat(-shift)}`;
  return toDecimalString(text)!;
}

/** `amount × rate` rounded UP to `digits` decimals: a quote never asks for less than the price. */
export function multiplyUp(amount: string, rate: Ratio, digits: number): string {
  const product = multiplyRatio(ratioOf(amount), rate);
  const scaled = product.num * 10n ** BigInt(digits);
  return fromUnits((scaled + product.den - 1n) / product.den, digits);
}
