/**
 * The rule of every amount a request carries (prices, cart items, donation bounds, donations,
 * withdrawals, simulated transfers): a number or a decimal string, never negative, never a float in
 * disguise (`1e3` is refused), at most the currency's or asset's digits, at most `MAX_AMOUNT`.
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
