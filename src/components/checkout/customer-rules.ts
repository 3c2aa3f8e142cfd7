/**
 * The customer-detail rule of the checkout form, with the signature and result of `checkCustomer`
 * in `core/rules/customer.ts`, and the phone rule itself taken from there (`normalizePhone`, the one
 * the service runs): a number the form accepts is one the service accepts.
 *
 * A phone is an international number: an optional `+`, then 7 to 15 digits not starting with 0, once
 * spaces, dots, dashes and brackets are dropped (`08012345678` is refused, as the service refuses
 * it). An address, when the link asks for one, is anything but blank. The core `checkCustomer` itself
 * (text lengths, email, its error collector) would cost the checkout 0.4 kB of its 15 kB budget for
 * checks the form's own fields already make (`maxlength`) or does not have (email).
 */

import { normalizePhone } from '../../core/rules/customer.js';

/** The message key of a refused detail (the same keys as `core/rules`). */
export type CustomerRuleKey = 'customer.addressRequired' | 'customer.phoneRequired' | 'customer.phoneInvalid';

/** Checks what the customer typed against what the link asks for; `errors` is empty when the service would accept it. */
export function checkCustomer(
  input: { address?: string; phone?: string },
  asks: { collectAddress: boolean; collectPhone: boolean },
): { errors: { path: string; key: CustomerRuleKey }[] } {
  const errors: { path: string; key: CustomerRuleKey }[] = [];
  const phone = input.phone?.trim();
  if (asks.collectAddress && !input.address?.trim()) errors.push({ path: 'customer.address', key: 'customer.addressRequired' });
  if (phone ? !normalizePhone(phone) : asks.collectPhone)
    errors.push({ path: 'customer.phone', key: phone ? 'customer.phoneInvalid' : 'customer.phoneRequired' });
  return { errors };
}
