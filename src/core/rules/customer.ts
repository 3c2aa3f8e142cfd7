/**
 * The rules of what a customer types before paying (DESIGN §4, public checkout API): the delivery
 * address and phone a link may ask for, and an optional email. The service runs them on `POST
 * /v1/checkout/{slug}/sessions`; the checkout element is to run the same (phase 2 wires it), so a
 * number the form accepts is one the service accepts.
 *
 * The phone rule is the service's: an international number (an optional `+`, then 7 to 15 digits
 * not starting with 0) once spaces, dots, dashes and brackets are dropped. A national number such as
 * `08012345678` is refused: it can't be dialled from abroad, and the merchant can't tell its country.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { MAX_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/** An email address: something@something.tld, without spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The phone number in the form the service stores (`+2348012345678`), or null when it is not an international number. */
export function normalizePhone(value: string): string | null {
  const compact = value.trim().replace(/[\s.\-()]/g, '');
  return /^\+?[1-9]\d{6,14}$/.test(compact) ? compact : null;
}

/** True when `value` is an email address (surrounding spaces ignored). */
export function isEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value.trim());
}

/** What the customer sent, with its types already checked. */
export interface CustomerInput {
  address?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
}

/** The details as stored: trimmed, the phone normalized, null when not given. */
export interface CustomerDetails {
  address: string | null;
  phone: string | null;
  email: string | null;
}

/** Checks a customer's details against what the link asks for (`collectAddress`, `collectPhone`). */
export function checkCustomer(
  input: CustomerInput | undefined,
  asks: { collectAddress: boolean; collectPhone: boolean },
): { customer: CustomerDetails; errors: RuleError[] } {
  const errors = new RuleErrors();
  const address = input?.address?.trim() ?? '';
  const phoneInput = input?.phone?.trim() ?? '';
  const email = input?.email?.trim() ?? '';
  let phone: string | null = null;
  if (asks.collectAddress && address === '') errors.fail('customer.address', 'customer.addressRequired');
  else checkText(address, 'customer.address', { max: MAX_LENGTH.customerAddress }, errors);
  if (phoneInput !== '') {
    phone = normalizePhone(phoneInput);
    if (phone === null) errors.fail('customer.phone', 'customer.phoneInvalid');
  } else if (asks.collectPhone) errors.fail('customer.phone', 'customer.phoneRequired');
  if (email !== '' && (email.length > MAX_LENGTH.email || !isEmail(email))) errors.fail('customer.email', 'customer.emailInvalid');
  return { customer: { address: address || null, phone, email: email || null }, errors: errors.list };
}
