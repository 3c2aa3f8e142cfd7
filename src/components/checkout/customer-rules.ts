/**
 * The customer-detail rule of the checkout: the service's rule (`normalizePhone` and the checks of
 * `startSession` in server/service/sessions.ts), with the signature and result of `checkCustomer` in
 * `core/rules/customer.ts`, which the shape stream is creating. Once that lands, this file goes and
 * the machine imports `checkCustomer` from there: one rule for the form and the service.
 *
 * A phone is an international number: an optional `+`, then 7 to 15 digits not starting with 0, once
 * spaces, dots, dashes and brackets are dropped (`08012345678` is refused, as the service refuses it).
 * An address, when the link asks for one, is anything but blank.
 */

/** The message key of a refused detail (the same keys as `core/rules`). */
export type CustomerRuleKey = 'customer.addressRequired' | 'customer.phoneRequired' | 'customer.phoneInvalid';

/** Checks what the customer typed against what the link asks for; `errors` is empty when the service would accept it. */
export function checkCustomer(
  input: { address?: string; phone?: string },
  asks: { collectAddress: boolean; collectPhone: boolean },
): { errors: { path: string; key: CustomerRuleKey }[] } {
  const errors: { path: string; key: CustomerRuleKey }[] = [];
  const phone = input.phone?.trim().replace(/[\s.\-()]/g, '');
  if (asks.collectAddress && !input.address?.trim()) errors.push({ path: 'customer.address', key: 'customer.addressRequired' });
  if (phone ? !/^\+?[1-9]\d{6,14}$/.test(phone) : asks.collectPhone)
    errors.push({ path: 'customer.phone', key: phone ? 'customer.phoneInvalid' : 'customer.phoneRequired' });
  return { errors };
}
