/**
 * The rule of every amount a request carries (prices, cart items, donation bounds, donations,
 * withdrawals, simulated transfers): a number or a decimal string, never negative, never a float in
 * disguise (`1e3` is refused), at most the currency's or asset's digits, at most `MAX_AMOUNT`. Also
 * how an amount typed by a person reads (`readTypedAmount`) and a donation's bounds
 * (`checkDonationBounds`), for the checkout, the admin and the service alike.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { compareDecimal, fractionDigits, toDecimalString } from '../money.js';
import { MAX_AMOUNT } from './limits.js';
import type { RuleErrors } from './types.js';

/** What an amount field allows. */
export interface AmountRule {
  /** Decimal digits allowed (the currency's or the asset's). */
  digits: number;
  /** The currency or asset the digits are those of, for the message. */
  unit: string;
  /** Refuse zero. */
  positive?: boolean;
}

/**
 * Reads `value` as an amount and checks it, adding at most one error on `path` to `errors`.
 * Returns the canonical decimal string (`"12.5"`), or null when it was refused.
 */
export function checkAmount(value: unknown, path: string, rule: AmountRule, errors: RuleErrors): string | null {
  if (typeof value === 'string' && value.trim() === '') return errors.fail(path, 'amount.required');
  const amount = toDecimalString(value);
  if (amount === null) return errors.fail(path, 'amount.invalid');
  if (fractionDigits(amount) > rule.digits) return errors.fail(path, 'amount.decimals', { unit: rule.unit, digits: rule.digits });
  if (rule.positive && compareDecimal(amount, '0') <= 0) return errors.fail(path, 'amount.positive');
  if (compareDecimal(amount, MAX_AMOUNT) > 0) return errors.fail(path, 'amount.tooLarge', { max: MAX_AMOUNT });
  return amount;
}

/**
 * Reads an amount as a person typed it into a plain decimal string (`"1 250,50"` → `"1250.50"`), or
 * null when it does not read as one amount. `decimalSeparator` is the reader's locale's, from `Intl`
 * (`Localizer.decimalSeparator`). The checkout and the admin read every typed amount with this, so
 * the same keys mean the same amount in both:
 *
 * - Spaces (no-break ones too), `_` and apostrophes group digits: they are dropped.
 * - Digit groups have three digits, so the last `,` or `.` is the decimal point whenever anything but
 *   exactly three digits follow it, in every locale: `12,50` is 12.50 in English as in French, `12.5`
 *   is 12.5 in French, `25.123456` is a crypto amount in both.
 * - Before exactly three digits the locale decides: its own decimal separator is the decimal point
 *   (`1.000` is 1 in English, `1,000` is 1 in French) and the other mark groups (`1,000` is 1000 in
 *   English, `1.000` is 1000 in French).
 * - Left of the decimal point only the other mark may group, every three digits (`1,250,000.50`,
 *   `1.250.000,50`). Anything else is unreadable: a sign, an exponent, `1.000.000` in English,
 *   `1,00,000`, `.5`, `5.`.
 */
export function readTypedAmount(typed: string, decimalSeparator: string): string | null {
  let text = typed.replace(/[\s_'\u2019]/g, '');
  const last = text.search(/[.,]\d*$/);
  const point = last < 0 || text.length - last == 4 ? decimalSeparator : text[last];
  // The decimal point as `.`, the marks that group as `_`: then one pattern checks both.
  text = text.replace(/[.,]/g, (mark) => (mark == point ? '.' : '_'));
  return /^(\d{1,3}(_\d{3})+|\d+)(\.\d+)?$/.test(text) ? text.replaceAll('_', '') : null;
}

/** Why a donation is outside its link's bounds: the message key, and the bound it broke as `amount`. */
export interface DonationBoundsError {
  key: 'donation.min' | 'donation.max';
  params: { amount: string };
}

/**
 * A donation's bounds: `amount` at least `min` and at most `max` (null: no bound). `compare` orders
 * two amounts (default: decimals of one currency; the service compares across currencies with its
 * rates). Returns the refusal (its key, and the bound for the message, which each side formats in its
 * own words and money format), or null when the amount is within.
 */
export function checkDonationBounds(
  amount: string,
  min: string | null | undefined,
  max: string | null | undefined,
  compare: (amount: string, bound: string) => number = compareDecimal,
): DonationBoundsError | null {
  return min != null && compare(amount, min) < 0
    ? { key: 'donation.min', params: { amount: min } }
    : max != null && compare(amount, max) > 0
      ? { key: 'donation.max', params: { amount: max } }
      : null;
}
