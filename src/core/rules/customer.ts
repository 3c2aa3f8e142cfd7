/**
 * The rules of what a customer types before paying (public checkout API): the delivery
 * address and phone a link may ask for, and an optional email. The service runs them on `POST
 * /v1/checkout/{slug}/sessions`; the checkout element runs `checkDelivery` (the same rule, without the
 * email it never asks) on its form, so what the form accepts is what the service accepts
 * (`test/components/checkout/parity.test.ts`).
 *
 * The phone rule is the service's: an international number (an optional `+`, then 7 to 15 digits
 * not starting with 0) once spaces, dots, dashes and brackets are dropped. A national number such as
 * `08012345678` is refused: it can't be dialled from abroad, and the merchant can't tell its country.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { MAX_ADDRESS_LENGTH, MAX_EMAIL_LENGTH, MAX_PHONE_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/**
 * An email address and nothing else: a local part of letters, digits and the RFC 5322 atom characters
 * in dot-separated runs, `@`, then a domain of dot-separated labels (letters, digits, inner hyphens)
 * ending in a top-level domain of letters (or a punycode one). Letters may be any script's. Never `?`
 * (a `mailto:` link's header fields start there: `?bcc=…`), `%` (percent-encoded tricks such as
 * `%40` for a second `@`), `#`, quotes, brackets, spaces or control and invisible characters.
 */
export const EMAIL_PATTERN =
  /^[\p{L}\p{M}\p{N}!$&'*+/=^_`{|}~-]+(?:\.[\p{L}\p{M}\p{N}!$&'*+/=^_`{|}~-]+)*@(?:[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?\.)+(?:[\p{L}\p{M}]{2,63}|xn--[a-z0-9-]{1,59})$/iu;

/** The longest local part (before the `@`) of an address (RFC 5321). */
const MAX_LOCAL_PART_LENGTH = 64;

/** The phone number in the form the service stores (`+2348012345678`), or null when it is not an international number. */
export function normalizePhone(value: string): string | null {
  const compact = value.trim().replace(/[\s.\-()]/g, '');
  return /^\+?[1-9]\d{6,14}$/.test(compact) ? compact : null;
}

/** True when `value` is an email address and nothing else (see `EMAIL_PATTERN`; surrounding spaces ignored). */
export function isEmail(value: string): boolean {
  const address = value.trim();
  return address.length <= MAX_EMAIL_LENGTH && address.indexOf('@') <= MAX_LOCAL_PART_LENGTH && EMAIL_PATTERN.test(address);
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

/**
 * Checks the delivery details a link asks for (`collectAddress`, `collectPhone`), adding errors to
 * `errors`; returns them as stored. The part of `checkCustomer` that the checkout element runs on
 * its form (it asks no email), apart so the element's bundle carries no email rule.
 */
export function checkDelivery(
  input: CustomerInput | undefined,
  asks: { collectAddress: boolean; collectPhone: boolean },
  errors: Pick<RuleErrors, 'fail'>,
): { address: string | null; phone: string | null } {
  const address = input?.address?.trim() ?? '';
  const phoneInput = input?.phone?.trim() ?? '';
  let phone: string | null = null;
  if (asks.collectAddress && address === '') errors.fail('customer.address', 'customer.addressRequired');
  else checkText(address, 'customer.address', { max: MAX_ADDRESS_LENGTH }, errors);
  if (phoneInput === '') {
    if (asks.collectPhone) errors.fail('customer.phone', 'customer.phoneRequired');
  } else if (
    // Its length as typed (spaces and brackets included), then the number itself.
    checkText(phoneInput, 'customer.phone', { max: MAX_PHONE_LENGTH }, errors) !== null &&
    (phone = normalizePhone(phoneInput)) === null
  )
    errors.fail('customer.phone', 'customer.phoneInvalid');
  return { address: address || null, phone };
}

/** Checks a customer's details (delivery, as `checkDelivery`, and an optional email) against what the link asks for. */
export function checkCustomer(
  input: CustomerInput | undefined,
  asks: { collectAddress: boolean; collectPhone: boolean },
): { customer: CustomerDetails; errors: RuleError[] } {
  const errors = new RuleErrors();
  const delivery = checkDelivery(input, asks, errors);
  const email = input?.email?.trim() ?? '';
  if (email !== '' && !isEmail(email)) errors.fail('customer.email', 'customer.emailInvalid');
  return { customer: { ...delivery, email: email || null }, errors: errors.list };
}
